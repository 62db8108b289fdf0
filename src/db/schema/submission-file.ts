import type { Insertable, Selectable } from 'kysely';

/**
 * A file part of a submission (migration 0021): stored under `storageKey` in the file store, or
 * dropped (uploads off, over the storage allowance) with `droppedReason`, a sentence for the owner.
 * Never a visitor's filename as a path: `name` is only shown and sent as a download's name.
 */
export interface SubmissionFileTable {
  id: string;
  submissionId: string;
  formId: string;
  workspaceId: string;
  /** The input's name: the field of `data` that lists the file. */
  field: string;
  /** Order among the submission's files, as sent. */
  position: number;
  /** The filename the browser sent, made safe to show (domain/uploads.ts, safeFileName). */
  name: string;
  /** The content type the browser declared (never trusted: files are always served as downloads). */
  type: string;
  size: number;
  /** Where the bytes are in the file store; null for a dropped file. */
  storageKey: string | null;
  droppedReason: string | null;
  createdAt: number;
}
export type SubmissionFileRow = Selectable<SubmissionFileTable>;
export type NewSubmissionFileRow = Insertable<SubmissionFileTable>;

/** A storage object that may have no row owning it: the sweep deletes it once `dueAt` has passed (migration 0021). */
export interface UnclaimedFileTable {
  storageKey: string;
  dueAt: number;
}
