import type { Selectable } from 'kysely';

export type TemplateKind = 'notification' | 'autoresponder';

export interface TemplateTable {
  formId: string;
  kind: TemplateKind;
  /** `code` for templates written through the API; `visual` ones come from the dashboard's editor. */
  mode: 'code' | 'visual';
  code: string;
  /** 0 or 1 for the autoresponder; null for the notification template, which is not content checked. */
  paused: number | null;
  /** Why the content check paused the autoresponder: a JSON array of sentences (text), or null. */
  pausedReasons: string | null;
  createdAt: number;
  updatedAt: number;
}
export type TemplateRow = Selectable<TemplateTable>;
