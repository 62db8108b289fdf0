/** The colours a label can have: named, each drawn in light and dark by the dashboard's CSS (`label-<colour>`). */
export const LABEL_COLORS = ['gray', 'red', 'orange', 'yellow', 'green', 'teal', 'blue', 'purple', 'pink'] as const;
export type LabelColor = (typeof LABEL_COLORS)[number];

/** A workspace holds at most this many labels: the inbox's lists and selects name them all. */
export const LABELS_PER_WORKSPACE = 50;
/** The longest label name, in characters. */
export const LABEL_NAME_MAX = 40;

export function isLabelColor(value: unknown): value is LabelColor {
  return typeof value === 'string' && (LABEL_COLORS as readonly string[]).includes(value);
}

/** A label as pages and the API show it. */
export interface Label {
  id: string;
  name: string;
  color: LabelColor;
}
