import { formatTime } from './time-zone.js';
import { isFileValue } from '../services/export-fields.js';
import { withoutHiddenCharacters } from '../domain/uploads.js';
import { cutText } from '../domain/cut-text.js';
/** How the inbox's table reads submitted fields: which columns a page gets, and each value in one short line. */

/** At most this many field columns: a wider table stops being readable at phone and laptop widths alike. */
export const MAX_FIELD_COLUMNS = 6;
/** A cell shows this many characters of a value; its own page shows all of it. */
export const CELL_LENGTH = 80;

/** A submission's fields as an object (anything else has no named fields). */
export function fieldsOf(data: unknown): Record<string, unknown> {
  return data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
}

/**
 * The columns of a page of submissions: every field name seen in its rows, in order of first
 * appearance, up to MAX_FIELD_COLUMNS. A row's other fields are counted in a "+N more" note.
 */
export function fieldColumns(rows: unknown[], max = MAX_FIELD_COLUMNS): string[] {
  const seen = new Set<string>();
  for (const data of rows) {
    for (const name of Object.keys(fieldsOf(data))) {
      seen.add(name);
      if (seen.size === max) return [...seen];
    }
  }
  return [...seen];
}

/** A field's name as a column's or a line's label: a visitor named it, so no bidirectional control or invisible character (issue 38, item 17). */
export function fieldLabel(name: string): string {
  return withoutHiddenCharacters(name);
}

/** How many of a row's fields have no column on this page. */
export function hiddenFieldCount(data: unknown, columns: string[]): number {
  return Object.keys(fieldsOf(data)).filter((name) => !columns.includes(name)).length;
}

/** A value on one line: nested objects as `key: value; …`, arrays as `a, b`, empty ones as nothing. */
export function compactValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(compactValue).join(', ');
  // a file: its name (the submission's page lists its type, size and download)
  if (isFileValue(value)) return withoutHiddenCharacters(value.name);
  if (typeof value === 'object') {
    return Object.entries(value)
      .map(([key, inner]) => `${key}: ${compactValue(inner)}`)
      .join('; ');
  }
  return String(value).replace(/\s+/g, ' ').trim();
}

/** The value cut to `length` characters (whole code points), with an ellipsis when cut. */
export function cut(text: string, length = CELL_LENGTH): string {
  return cutText(text, length);
}

/** A row's first fields as `name: value` lines, for the lists without columns (spam, held). */
export function summaryOf(data: unknown, count = 3): { name: string; value: string }[] {
  return Object.entries(fieldsOf(data))
    .slice(0, count)
    .map(([name, value]) => ({ name: fieldLabel(name), value: cut(compactValue(value)) }));
}

/** A time as the dashboard writes it, in the viewer's zone ("24 Nov 2026, 10:02 UTC"), for labels that cannot hold a `<time>`. */
export function timeText(ms: number): string {
  return formatTime(ms).text;
}
