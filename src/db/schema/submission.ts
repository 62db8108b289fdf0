import type { Insertable, Selectable } from 'kysely';

/** accepted: listed and delivered; held: past the quota, waiting for an upgrade; spam: quarantined. */
export type SubmissionStatus = 'accepted' | 'held' | 'spam';

export interface SubmissionTable {
  id: string;
  formId: string;
  workspaceId: string;
  /** The submitted fields as JSON (text on SQLite, jsonb on PostgreSQL). */
  data: unknown;
  status: SubmissionStatus;
  createdAt: number;
}
export type SubmissionRow = Selectable<SubmissionTable>;
export type NewSubmissionRow = Insertable<SubmissionTable>;
