import type { ExpressionBuilder, Transaction } from 'kysely';
import type { Database } from './database.js';
import type { FileStore } from '../files/file-store.js';
import type { DB } from './schema/index.js';

/** Keys per statement when files are released or removed. */
const KEYS_PER_STATEMENT = 500;

/** Which submissions' files to release: some by id, or every one of a form. */
export type FilesOf = { submissionIds: readonly string[] } | { formId: string };

/**
 * In the transaction that deletes submissions, before it does (submission_files does not cascade):
 * deletes their files' rows, takes their bytes off each workspace's `file_bytes`, and writes the
 * stored objects' keys to `unclaimed_files`, due now. Answers those keys: after the commit the
 * caller removes the objects (removeReleasedFiles); should it fail, the sweep does. So no row ever
 * points at a missing file, and no object is left without a row that will remove it.
 */
export async function releaseFiles(trx: Transaction<DB>, which: FilesOf, now: number): Promise<string[]> {
  if ('submissionIds' in which && which.submissionIds.length === 0) return [];
  const files = trx.deleteFrom('submissionFiles');
  const released = await ('formId' in which
    ? files.where('submissionId', 'in', trx.selectFrom('submissions').select('submissions.id').where('submissions.formId', '=', which.formId))
    : files.where('submissionId', 'in', [...which.submissionIds])
  )
    .returning(['workspaceId', 'storageKey', 'size'])
    .execute();
  const keys: string[] = [];
  const bytes = new Map<string, number>();
  for (const file of released) {
    if (file.storageKey === null) continue;
    keys.push(file.storageKey);
    bytes.set(file.workspaceId, (bytes.get(file.workspaceId) ?? 0) + Number(file.size));
  }
  for (const [workspaceId, freed] of [...bytes].sort(([a], [b]) => (a < b ? -1 : 1))) {
    await trx
      .updateTable('workspaces')
      .set((eb) => ({ fileBytes: eb('fileBytes', '-', freed) }))
      .where('id', '=', workspaceId)
      .execute();
  }
  for (let start = 0; start < keys.length; start += KEYS_PER_STATEMENT) {
    await trx
      .insertInto('unclaimedFiles')
      .values(keys.slice(start, start + KEYS_PER_STATEMENT).map((storageKey) => ({ storageKey, dueAt: now })))
      .onConflict((oc) => oc.column('storageKey').doNothing())
      .execute();
  }
  return keys;
}

/**
 * After the deleting transaction committed: removes the released objects, then their unclaimed
 * rows. A failure is left to the sweep (the rows are due), so the deletion itself stands.
 */
export async function removeReleasedFiles(database: Database, files: FileStore | null, keys: readonly string[]): Promise<void> {
  if (!files || keys.length === 0) return;
  try {
    for (let start = 0; start < keys.length; start += KEYS_PER_STATEMENT) {
      const chunk = keys.slice(start, start + KEYS_PER_STATEMENT);
      await files.remove(chunk);
      await database.db.deleteFrom('unclaimedFiles').where('storageKey', 'in', chunk).execute();
    }
  } catch {
    // NOTE: the objects' rows in unclaimed_files are due: the sweep removes them and logs it
  }
}

/**
 * How long after its lease a pending delivery still counts as being tried: a worker that stalled
 * past its lease may yet record its try, and the record of a try whose job was deleted would fail
 * (its tries reference the job), taking the other tries recorded with it.
 */
export const UNDER_WAY_GRACE_MS = 10 * 60_000;

/** A job some worker is trying now (or may still be): pending, with a lease that holds or lapsed only lately. */
function underWay(eb: ExpressionBuilder<DB, 'jobs'>, now: number) {
  return eb.and([eb('jobs.status', '=', 'pending'), eb('jobs.leaseUntil', 'is not', null), eb('jobs.leaseUntil', '>', now - UNDER_WAY_GRACE_MS)]);
}

/**
 * Deletes the deliveries of these submissions that no worker is trying now (their payloads may copy
 * the fields): a workspace's deletion runs it before deleting them. One under way is left to finish;
 * its `submission_id` goes null with the submission (the foreign key), as when a form is deleted.
 */
export async function deleteIdleJobs(trx: Transaction<DB>, submissionIds: readonly string[], now: number): Promise<void> {
  if (submissionIds.length === 0) return;
  await trx
    .deleteFrom('jobs')
    .where('jobs.submissionId', 'in', [...submissionIds])
    .where((eb) => eb.not(underWay(eb, now)))
    .execute();
}

/**
 * The condition "no delivery of this submission is being tried now", for a query of submissions:
 * such a submission waits for the next run (retention) or the next request (erasure).
 */
export function noDeliveryUnderWay(eb: ExpressionBuilder<DB, 'submissions'>, now: number) {
  return eb.not(
    eb.exists(
      eb
        .selectFrom('jobs')
        .select('jobs.id')
        .whereRef('jobs.submissionId', '=', 'submissions.id')
        .where((jobs) => underWay(jobs, now)),
    ),
  );
}

/**
 * Deletes the submissions `ids` of `workspaceId` for good, with their deliveries: the jobs (whose
 * payloads may copy the fields, as a webhook's does) and their tries (the foreign key's cascade).
 * The search index follows (its trigger on SQLite, the index itself on PostgreSQL). A submission
 * with a delivery being tried right now is left whole, counted in `busy`; the caller tries it again
 * later. Day counts and the allowance used are not changed, as when a submission is deleted by hand.
 * Their files are released (releaseFiles): the caller passes `released` to removeReleasedFiles
 * after the commit. Runs in the caller's transaction.
 */
export async function deleteWithDeliveries(
  trx: Transaction<DB>,
  workspaceId: string | null,
  ids: readonly string[],
  now: number,
): Promise<{ deleted: number; busy: number; released: string[]; going: { id: string; formId: string }[] }> {
  if (ids.length === 0) return { deleted: 0, busy: 0, released: [], going: [] };
  const wanted = [...ids];
  await trx
    .deleteFrom('jobs')
    .where('jobs.submissionId', 'in', wanted)
    .where((eb) => eb.not(underWay(eb, now)))
    .execute();
  let deletable = trx
    .selectFrom('submissions')
    .select(['submissions.id', 'submissions.formId'])
    .where('submissions.id', 'in', wanted)
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('jobs').select('jobs.id').whereRef('jobs.submissionId', '=', 'submissions.id'))));
  if (workspaceId !== null) deletable = deletable.where('submissions.workspaceId', '=', workspaceId);
  const goingRows = await deletable.execute();
  const going = goingRows.map((row) => row.id);
  const released = await releaseFiles(trx, { submissionIds: going }, now);
  const deleted = going.length === 0 ? 0 : Number((await trx.deleteFrom('submissions').where('id', 'in', going).executeTakeFirst()).numDeletedRows);
  const left = await trx
    .selectFrom('submissions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('id', 'in', wanted)
    .executeTakeFirstOrThrow();
  return { deleted, busy: Number(left.n), released, going: goingRows };
}
