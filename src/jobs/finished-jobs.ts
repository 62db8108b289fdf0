import { sql } from 'kysely';
import type { Database } from '../db/database.js';
import type { JobStatus } from '../db/schema/job.js';
import { LoopSlice } from '../domain/loop-slice.js';

/** Rows per statement: each delete is its own short transaction, never one long one. */
export const JOB_BATCH = 1000;
/** Statements per run: a large backlog (the first run on an old installation) goes over several hours. */
export const JOB_BATCHES_PER_RUN = 100;

export interface PurgeLimits {
  batchSize?: number;
  maxBatches?: number;
}

/**
 * Removes deliveries finished for good (`done`: delivered or written to a file; `failed`: given up)
 * whose last change is older than `cutoff`, with their tries (the foreign key's cascade), so the
 * outbox does not grow forever. Pending jobs (due, running or waiting for a retry) always stay.
 * `more`: the run stopped at its cap with rows left, which the next run takes.
 */
export async function purgeFinishedJobs(database: Database, cutoff: number, limits: PurgeLimits = {}): Promise<{ jobs: number; more: boolean }> {
  const batchSize = limits.batchSize ?? JOB_BATCH;
  const maxBatches = limits.maxBatches ?? JOB_BATCHES_PER_RUN;
  let jobs = 0;
  // the event loop is given back between statements once the run has had its slice
  const slice = new LoopSlice();
  for (let batch = 0; batch < maxBatches; batch++) {
    await slice.yieldIfDue();
    const removed = await deleteBatch(database, cutoff, batchSize);
    jobs += removed;
    if (removed < batchSize) return { jobs, more: false };
  }
  return { jobs, more: true };
}

// NOTE: `updated_at` is when a finished job finished (the worker's last write, or "Retry" putting it
// back to pending). No index has it, but a finished job was due before it finished (run_at <=
// updated_at), so `run_at < cutoff` lets the workers' index (status, run_at) find the candidates.
// The outer query repeats the conditions: a job retried since the subquery read it is not deleted
// (PostgreSQL re-checks them on the row it locked). On PostgreSQL, SKIP LOCKED lets several
// instances purge at once without waiting on (or deadlocking over) each other's rows.
async function deleteBatch(database: Database, cutoff: number, batchSize: number): Promise<number> {
  const finished: JobStatus[] = ['done', 'failed'];
  const candidates = database.db
    .selectFrom('jobs')
    .select('id')
    .where('status', 'in', finished)
    .where('runAt', '<', cutoff)
    .where('updatedAt', '<', cutoff)
    .limit(batchSize);
  // NOTE: on PostgreSQL, `id IN (subquery with LIMIT … FOR UPDATE)` may be run again for each row
  // and so delete past the limit (seen in the tests); `= ANY(ARRAY(…))` runs it once.
  const ids = database.dialect === 'postgres' ? sql<string>`ANY(ARRAY(${candidates.forUpdate().skipLocked()}))` : null;
  const result = await database.db
    .deleteFrom('jobs')
    .where((eb) => (ids ? eb('id', '=', ids) : eb('id', 'in', candidates)))
    .where('status', 'in', finished)
    .where('updatedAt', '<', cutoff)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
