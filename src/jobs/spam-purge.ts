import type { Logger } from 'pino';
import type { AppContext } from '../context.js';
import { runHourly } from './hourly.js';

/**
 * Purges expired spam at start and then hourly, in every instance (the delete is idempotent, so
 * instances need not agree on who runs it). Returns a function that stops it.
 */
export function startSpamPurge(ctx: AppContext, log: Logger): () => void {
  return runHourly(
    async () => {
      const purged = await ctx.submissions.purgeExpiredSpam(ctx.config.spamRetentionMs);
      if (purged > 0) log.info({ purged }, 'purged expired spam');
      // the spam folder's bound counts days within the retention only (intake/writer.ts)
      await ctx.submissions.forgetSpamDays(ctx.config.spamRetentionMs);
    },
    log,
    'spam purge failed',
  );
}
