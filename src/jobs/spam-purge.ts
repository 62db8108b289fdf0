import type { Logger } from 'pino';
import type { AppContext } from '../context.js';

const PURGE_EVERY_MS = 60 * 60 * 1000;

/**
 * Purges expired spam at start and then hourly, in every instance (the delete is idempotent, so
 * instances need not agree on who runs it). Returns a function that stops it.
 */
export function startSpamPurge(ctx: AppContext, log: Logger): () => void {
  const purge = async () => {
    try {
      const purged = await ctx.submissions.purgeExpiredSpam(ctx.config.spamRetentionMs);
      if (purged > 0) log.info({ purged }, 'purged expired spam');
    } catch (err) {
      log.error({ err }, 'spam purge failed; trying again in an hour');
    }
  };
  void purge();
  const timer = setInterval(() => void purge(), PURGE_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
