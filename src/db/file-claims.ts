import type { Transaction } from 'kysely';
import { settleFileReservations, takeOffReserved } from './file-reservations.js';
import { insertRows } from './insert-rows.js';
import type { DB } from './schema/index.js';
import type { SubmissionFileRow } from './schema/submission-file.js';

/** A file part as the intake took it: stored under `storageKey`, or dropped with `droppedReason`; its row without what the submission gives it. */
export type FilePart = Omit<SubmissionFileRow, 'submissionId' | 'formId' | 'workspaceId' | 'createdAt'>;

const FILE_COLUMNS = [
  'id',
  'submissionId',
  'formId',
  'workspaceId',
  'field',
  'position',
  'name',
  'type',
  'size',
  'storageKey',
  'droppedReason',
  'createdAt',
] as const;
const KEYS_PER_STATEMENT = 500;

/**
 * In the transaction that inserts the submissions: their files' rows, the stored objects taken off
 * `unclaimed_files` (so the sweep leaves them), and their bytes added to each workspace's
 * `file_bytes` while the posts' reservations (`reservationId`, db/file-reservations.ts) come off its
 * reserved bytes, workspaces in id order (PostgreSQL takes the rows' locks in one order).
 */
export async function claimFiles(
  trx: Transaction<DB>,
  submissions: readonly { submissionId: string; formId: string; workspaceId: string; files: readonly FilePart[]; reservationId?: string }[],
  createdAt: number,
): Promise<void> {
  const reserved = await settleFileReservations(
    trx,
    submissions.flatMap((submission) => (submission.reservationId ? [submission.reservationId] : [])),
  );
  const rows = submissions.flatMap(({ submissionId, formId, workspaceId, files }) =>
    files.map((file) => ({ ...file, submissionId, formId, workspaceId, createdAt })),
  );
  if (rows.length === 0) return takeOffReserved(trx, reserved);
  await insertRows(trx, 'submissionFiles', FILE_COLUMNS, rows);
  const keys = rows.flatMap((row) => (row.storageKey === null ? [] : [row.storageKey]));
  for (let start = 0; start < keys.length; start += KEYS_PER_STATEMENT) {
    await trx
      .deleteFrom('unclaimedFiles')
      .where('storageKey', 'in', keys.slice(start, start + KEYS_PER_STATEMENT))
      .execute();
  }
  const bytes = new Map<string, number>();
  for (const row of rows) if (row.storageKey !== null) bytes.set(row.workspaceId, (bytes.get(row.workspaceId) ?? 0) + row.size);
  await takeOffReserved(trx, reserved, bytes);
}
