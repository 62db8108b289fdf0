import type { Generated, Insertable, Selectable } from 'kysely';

/** accepted: listed and delivered; held: past the quota, waiting for an upgrade; spam: quarantined. */
export type SubmissionStatus = 'accepted' | 'held' | 'spam';

export interface SubmissionTable {
  /** Insertion order; the key SQLite's full-text index refers to. */
  seq: Generated<number>;
  id: string;
  formId: string;
  workspaceId: string;
  /** The submitted fields as JSON text, keys in the order sent (text on SQLite, json on PostgreSQL). */
  data: unknown;
  status: SubmissionStatus;
  /** Field names and values, one per line, folded (lower case, Latin accents off; migration 0026): what `search` matches. */
  searchText: Generated<string>;
  /** `_email.*` and `_replyto` of the submission, kept for the email step (JSON), or null. */
  emailControls: unknown;
  /** Why a spam submission was quarantined: a JSON array of sentences (text), or null. */
  spamReasons: string | null;
  /** What the spam filter learned from this submission's marks: `spam`, `ham`, or null (migration 0029). */
  spamLesson: Generated<'spam' | 'ham' | null>;
  /** 1 until someone of the workspace opens it or marks it read (migration 0022; older rows are read). */
  unread: Generated<number>;
  /** The team's note on the submission; null: none. */
  note: Generated<string | null>;
  /** When someone marked it done (ms); null while it is open (migration 0032). */
  doneAt: Generated<number | null>;
  /** The member it is assigned to; null: nobody (migration 0032). */
  assigneeId: Generated<string | null>;
  createdAt: number;
}
export type SubmissionRow = Selectable<SubmissionTable>;
export type NewSubmissionRow = Insertable<SubmissionTable>;
