import type { Logger } from 'pino';
import type { AppContext } from '../context.js';
import type { Database } from '../db/database.js';
import type { FileStore } from '../files/file-store.js';
import { expireFileReservations } from '../db/file-reservations.js';
import { LoopSlice } from '../domain/loop-slice.js';
import { runEvery } from './hourly.js';

/** How often the sweep runs: a deletion's leftovers and a crashed upload's objects do not wait long. */
export const FILE_SWEEP_EVERY_MS = 5 * 60_000;
/** Objects removed per batch, and batches per run: a large backlog goes over several runs. */
export const FILE_SWEEP_BATCH = 500;
export const FILE_SWEEP_BATCHES_PER_RUN = 20;
/** A partial file (a write a crash cut short) this old is abandoned. */
const ABANDONED_AFTER_MS = 60 * 60_000;

export interface FileSweepResult {
  /** Objects removed (one already gone counts too: its row went). */
  removed: number;
  /** The run stopped at its cap with due objects left, which the next run takes. */
  more: boolean;
}

/**
 * Removes the objects of `unclaimed_files` that are due (an upload whose submission never
 * committed, a deletion whose own removal failed), then their rows. On PostgreSQL each batch locks
 * its rows with SKIP LOCKED, so instances sweeping at once take different objects; SQLite has one
 * instance, and removes outside a transaction so no writer waits on the store.
 */
export async function sweepUnclaimedFiles(
  database: Database,
  files: FileStore,
  now = Date.now(),
  limits: { batchSize?: number; maxBatches?: number } = {},
): Promise<FileSweepResult> {
  const batchSize = limits.batchSize ?? FILE_SWEEP_BATCH;
  const maxBatches = limits.maxBatches ?? FILE_SWEEP_BATCHES_PER_RUN;
  const result: FileSweepResult = { removed: 0, more: false };
  // the event loop is given back between batches once the sweep has had its slice
  const slice = new LoopSlice();
  for (let batches = 0; ; batches++) {
    if (batches >= maxBatches) {
      result.more = true;
      return result;
    }
    await slice.yieldIfDue();
    const removed =
      database.dialect === 'postgres'
        ? await database.transaction(async (trx) => {
            const keys = (
              await trx
                .selectFrom('unclaimedFiles')
                .select('storageKey')
                .where('dueAt', '<=', now)
                .orderBy('dueAt')
                .limit(batchSize)
                .forUpdate()
                .skipLocked()
                .execute()
            ).map((row) => row.storageKey);
            if (keys.length > 0) {
              await files.remove(keys);
              await trx.deleteFrom('unclaimedFiles').where('storageKey', 'in', keys).execute();
            }
            return keys.length;
          })
        : await sweepBatch(database, files, now, batchSize);
    result.removed += removed;
    if (removed < batchSize) return result;
  }
}

async function sweepBatch(database: Database, files: FileStore, now: number, batchSize: number): Promise<number> {
  const keys = (await database.db.selectFrom('unclaimedFiles').select('storageKey').where('dueAt', '<=', now).orderBy('dueAt').limit(batchSize).execute()).map(
    (row) => row.storageKey,
  );
  if (keys.length === 0) return 0;
  await files.remove(keys);
  await database.db.deleteFrom('unclaimedFiles').where('storageKey', 'in', keys).where('dueAt', '<=', now).execute();
  return keys.length;
}

/** Sweeps at start and then every five minutes, in every instance. Logs what it removed. Returns what stops it. */
export function startFileSweep(ctx: AppContext, log: Logger): () => void {
  return runEvery(
    FILE_SWEEP_EVERY_MS,
    async () => {
      const result = await sweepUnclaimedFiles(ctx.database, ctx.files);
      // a write still going is at most as old as the longest upload: an hour is far past that
      const partials = (await ctx.files.removeAbandoned?.(Date.now() - ABANDONED_AFTER_MS)) ?? 0;
      if (result.removed > 0 || partials > 0) {
        log.info({ ...result, partials, store: ctx.files.describe() }, 'removed uploaded files that no submission holds');
      } else log.debug(result, 'no uploaded files to sweep');
      // what a process that crashed mid-post had reserved of a workspace's file allowance
      const expired = await expireFileReservations(ctx.database);
      if (expired > 0) log.info({ expired }, 'gave back the file bytes reserved by posts that never ended');
    },
    log,
    'file sweep failed',
  );
}
