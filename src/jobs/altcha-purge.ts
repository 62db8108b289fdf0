import type { Logger } from 'pino';
import type { AppContext } from '../context.js';
import { runHourly } from './hourly.js';

/**
 * Forgets spent ALTCHA challenges once expired, at start and then hourly, in every instance (the
 * delete is idempotent). An expired challenge is refused by its own expiry, so its row is no longer needed.
 */
export function startAltchaPurge(ctx: AppContext, log: Logger): () => void {
  return runHourly(
    async () => {
      const purged = await ctx.altchaSpent.purgeExpired();
      if (purged > 0) log.debug({ purged }, 'forgot expired ALTCHA challenges');
    },
    log,
    'ALTCHA challenge purge failed',
  );
}
