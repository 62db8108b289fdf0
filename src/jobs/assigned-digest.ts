import type { Logger } from 'pino';
import type { AppContext } from '../context.js';
import { runHourly } from './hourly.js';

/**
 * Sends the digests of what is open and assigned that are due, at start and then hourly, in every
 * instance: each member's digest is claimed in its own transaction (services/assigned-digests.ts),
 * so instances running at once never send one twice. Logs what went, and counts it on /metrics.
 */
export function startAssignedDigests(ctx: AppContext, log: Logger): () => void {
  return runHourly(
    async () => {
      const run = await ctx.assignedDigests.sendDue();
      ctx.metrics?.assignedDigestEmails(run.emails);
      log.info(run, 'assigned digests enqueued');
    },
    log,
    'assigned digest failed',
  );
}
