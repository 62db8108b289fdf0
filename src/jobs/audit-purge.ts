import type { Logger } from 'pino';
import type { AppContext } from '../context.js';
import { LoopSlice } from '../domain/loop-slice.js';
import { runHourly } from './hourly.js';

/** Events per statement: each delete is its own short transaction. */
export const AUDIT_PURGE_BATCH = 1000;
/** Statements per run: a long backlog (a retention shortened on a busy installation) goes over several hours. */
export const AUDIT_PURGE_BATCHES_PER_RUN = 100;

export interface AuditPurgeResult {
  events: number;
  /** The run stopped at its cap with events left: the next run goes on. */
  more: boolean;
}

/** Removes the audit events older than FORMGATE_AUDIT_RETENTION_DAYS, a batch at a time; null when they are kept forever. */
export async function purgeAuditEvents(
  ctx: Pick<AppContext, 'audit' | 'config'>,
  now = Date.now(),
  limits: { batchSize?: number; maxBatches?: number } = {},
): Promise<AuditPurgeResult | null> {
  if (ctx.config.auditRetentionMs === null) return null;
  const cutoff = now - ctx.config.auditRetentionMs;
  const batchSize = limits.batchSize ?? AUDIT_PURGE_BATCH;
  const maxBatches = limits.maxBatches ?? AUDIT_PURGE_BATCHES_PER_RUN;
  const slice = new LoopSlice();
  let events = 0;
  for (let batch = 0; batch < maxBatches; batch++) {
    await slice.yieldIfDue();
    const removed = await ctx.audit.purge(cutoff, batchSize);
    events += removed;
    if (removed < batchSize) return { events, more: false };
  }
  return { events, more: true };
}

/** Purges audit events at start and then hourly, in every instance (the deletes skip each other's rows). Returns what stops it. */
export function startAuditPurge(ctx: AppContext, log: Logger): () => void {
  if (ctx.config.auditRetentionMs === null) return () => {};
  return runHourly(
    async () => {
      const removed = await purgeAuditEvents(ctx);
      if (removed && removed.events > 0) log.info(removed, 'removed audit events past FORMGATE_AUDIT_RETENTION_DAYS');
      else log.debug(removed ?? {}, 'no audit events past FORMGATE_AUDIT_RETENTION_DAYS');
    },
    log,
    'audit event purge failed',
  );
}
