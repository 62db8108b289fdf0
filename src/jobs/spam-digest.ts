import type { Logger } from 'pino';
import type { AppContext } from '../context.js';
import { runHourly } from './hourly.js';

/**
 * Sends the spam digests that are due, at start and then hourly, in every instance: each
 * workspace's digest is claimed in its own transaction (services/spam-digests.ts), so instances
 * running at once never send one twice. Logs what went, and counts it on /metrics.
 */
export function startSpamDigests(ctx: AppContext, log: Logger): () => void {
  return runHourly(
    async () => {
      const run = await ctx.spamDigests.sendDue();
      ctx.metrics?.spamDigestEmails(run.emails);
      if (run.workspaces > 0) log.info(run, 'spam digests enqueued');
      else log.debug(run, 'no spam digest due');
    },
    log,
    'spam digest failed',
  );
}
