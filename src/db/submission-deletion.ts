import type { ExpressionBuilder, Transaction } from 'kysely';
import type { DB } from './schema/index.js';

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
 * Runs in the caller's transaction.
 * NOTE: a submission's files (issue 28) must be removed here too once submissions hold files.
 */
export async function deleteWithDeliveries(
  trx: Transaction<DB>,
  workspaceId: string | null,
  ids: readonly string[],
  now: number,
): Promise<{ deleted: number; busy: number }> {
  if (ids.length === 0) return { deleted: 0, busy: 0 };
  const wanted = [...ids];
  await trx
    .deleteFrom('jobs')
    .where('jobs.submissionId', 'in', wanted)
    .where((eb) => eb.not(underWay(eb, now)))
    .execute();
  let submissions = trx
    .deleteFrom('submissions')
    .where('submissions.id', 'in', wanted)
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('jobs').select('jobs.id').whereRef('jobs.submissionId', '=', 'submissions.id'))));
  if (workspaceId !== null) submissions = submissions.where('submissions.workspaceId', '=', workspaceId);
  const deleted = Number((await submissions.executeTakeFirst()).numDeletedRows);
  const left = await trx
    .selectFrom('submissions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('id', 'in', wanted)
    .executeTakeFirstOrThrow();
  return { deleted, busy: Number(left.n) };
}
