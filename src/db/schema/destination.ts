import type { Selectable } from 'kysely';

/** One of a form's destinations (migration 0040, domain/destinations.ts): a service each accepted submission is sent to. */
export interface FormDestinationTable {
  id: string;
  formId: string;
  /** `airtable`, `notion`, `google-sheets`, `brevo`, `listmonk` or `mailchimp`: also its jobs' kind. */
  kind: string;
  /** What is not secret, as JSON (text on SQLite, jsonb on PostgreSQL): read it with `destinationSettingsOf`. */
  settings: unknown;
  /** The token or key (a Google service account's whole JSON key), as typed; never shown back. */
  secret: string;
  lastTriedAt: number | null;
  /** `ok` or `failed`: how its last delivery went; null before the first. */
  lastStatus: 'ok' | 'failed' | null;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
}
export type FormDestinationRow = Selectable<FormDestinationTable>;
