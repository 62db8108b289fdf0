import type { TestApp } from './app.js';
import { until } from './eventually.js';

/**
 * "Time passes" for the jobs waiting out a retry delay (up to an hour: src/jobs/retry-policy.ts):
 * every pending job not held by a worker is made due now, as if its delay had run out.
 */
export async function letRetryDelaysPass(app: TestApp): Promise<void> {
  const now = Date.now();
  await app.ctx.database.db
    .updateTable('jobs')
    .set({ runAt: now })
    .where('status', '=', 'pending')
    .where('runAt', '>', now)
    .where((eb) => eb.or([eb('leaseUntil', 'is', null), eb('leaseUntil', '<', now)]))
    .execute();
}

/** Waits until `delivered` holds, letting the retry delays pass at each look (every half second); false at the deadline. */
export async function deliverTheBacklog(app: TestApp, delivered: () => boolean | Promise<boolean>, deadlineMs = 45_000): Promise<boolean> {
  try {
    await until(
      'the backlog to be delivered',
      async () => {
        if (await delivered()) return true;
        await letRetryDelaysPass(app);
        return false;
      },
      deadlineMs,
      500,
    );
    return true;
  } catch {
    // the caller prints its figures first, then asserts what is missing
    return delivered();
  }
}

/** The tries recorded so far, counted by outcome (ok, retry, failed, interrupted). */
export async function triesByOutcome(app: TestApp): Promise<Record<string, number>> {
  const rows = await app.ctx.database.db
    .selectFrom('jobAttempts')
    .select(['outcome', (eb) => eb.fn.countAll<number>().as('count')])
    .groupBy('outcome')
    .execute();
  return Object.fromEntries(rows.map((row) => [row.outcome, Number(row.count)]));
}

/** How many tries so far failed with an error matching `pattern` (or with SMTP or HTTP status `code`). */
export async function triesFailedWith(app: TestApp, match: { pattern?: RegExp; code?: number }): Promise<number> {
  const rows = await app.ctx.database.db.selectFrom('jobAttempts').select(['error', 'statusCode']).where('outcome', '!=', 'ok').execute();
  return rows.filter((row) => (match.code !== undefined && row.statusCode === match.code) || (match.pattern?.test(row.error ?? '') ?? false)).length;
}
