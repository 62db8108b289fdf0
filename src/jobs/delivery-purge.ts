import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { AppContext } from '../context.js';
import type { Database } from '../db/database.js';
import { purgeOutboxFiles } from '../mail/outbox-files.js';
import { outboxDir } from '../mail/transport.js';
import { purgeFinishedJobs } from './finished-jobs.js';
import { runHourly } from './hourly.js';

export interface DeliveryPurgeResult {
  jobs: number;
  files: number;
  /** A cap was reached with more to remove: the next run goes on. */
  more: boolean;
}

/**
 * Lets delivery records go after FORMGATE_DELIVERY_RETENTION_DAYS: finished jobs with their tries,
 * and the `.eml` files of the outbox folder. Nothing when the retention is off (null).
 */
export async function purgeDeliveryRecords(
  database: Database,
  config: Pick<Config, 'deliveryRetentionMs' | 'dataDir' | 'database'>,
  now = Date.now(),
): Promise<DeliveryPurgeResult | null> {
  if (config.deliveryRetentionMs === null) return null;
  const cutoff = now - config.deliveryRetentionMs;
  const jobs = await purgeFinishedJobs(database, cutoff);
  const files = await purgeOutboxFiles(outboxDir(config), cutoff);
  return { jobs: jobs.jobs, files: files.files, more: jobs.more || files.more };
}

/**
 * Purges delivery records at start and then hourly, in every instance (the deletes are idempotent
 * and skip each other's rows, so instances need not agree on who runs it). Returns a function that stops it.
 */
export function startDeliveryPurge(ctx: AppContext, log: Logger): () => void {
  if (ctx.config.deliveryRetentionMs === null) return () => {};
  return runHourly(
    async () => {
      const removed = await purgeDeliveryRecords(ctx.database, ctx.config);
      if (removed && (removed.jobs > 0 || removed.files > 0)) log.info(removed, 'removed delivery records past FORMGATE_DELIVERY_RETENTION_DAYS');
      else log.debug(removed ?? {}, 'no delivery records past FORMGATE_DELIVERY_RETENTION_DAYS');
    },
    log,
    'delivery record purge failed',
  );
}
