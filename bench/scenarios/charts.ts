import { sql } from 'kysely';
import type { AppContext } from '../../src/context.js';
import { DAY_MS } from '../../src/domain/time.js';
import { idAt } from '../../src/ids.js';
import { freshDatabase, type BenchDialect } from '../lib/databases.js';
import { createAccount, createForm, settle, withContext } from '../lib/fixtures.js';

/** p50 and p99 of one query, in ms, over many calls one after another. */
export interface QueryFigures {
  calls: number;
  p50Ms: number;
  p99Ms: number;
}

export interface ChartsResult {
  dialect: BenchDialect;
  submissions: number;
  /** One form's 30 days (a form's chart): membership check and daily_counts. */
  form: QueryFigures;
  /** The workspace page's counts: its 30 days, each listed form's 30 days, month and last submission. */
  workspace: QueryFigures;
}

const SUBMISSIONS = 50_000;
const OTHER_FORMS = 19;
const WARMUP_CALLS = 200;
const CALLS = 2000;
const SPAM_EVERY = 20;

/**
 * The chart query at 50,000 submissions: one form holding them all, spread over the last 30 days
 * (one in 20 spam), with the daily_counts rows the writer would have left, among 20 forms. Measured
 * in the process through the stats service (no HTTP): what the dashboard's pages pay for their counts.
 */
export async function runCharts(dialect: BenchDialect): Promise<ChartsResult> {
  const database = await freshDatabase(dialect, 'charts');
  return withContext(database, async (ctx) => {
    const account = await createAccount(ctx, 'charts@example.com');
    const formId = await createForm(ctx, account, { name: 'Busy' });
    const formIds = [formId];
    for (let i = 1; i <= OTHER_FORMS; i++) formIds.push(await createForm(ctx, account, { name: `Quiet ${i}` }));
    await seedSpread(ctx, formId, account.workspaceId, Date.now());
    await settle(ctx);
    const form = await measure(() => ctx.stats.formDays(account.userId, formId));
    const workspace = await measure(() => ctx.stats.workspaceStats(account.userId, account.workspaceId, formIds));
    return { dialect, submissions: SUBMISSIONS, form, workspace };
  });
}

/** 50,000 submission rows over the last 30 days, written directly in batches, then their daily_counts as the writer counts them. */
async function seedSpread(ctx: AppContext, formId: string, workspaceId: string, now: number): Promise<void> {
  const span = 30 * DAY_MS - 60_000;
  const BATCH = 1000;
  for (let start = 0; start < SUBMISSIONS; start += BATCH) {
    const rows = Array.from({ length: Math.min(BATCH, SUBMISSIONS - start) }, (_, k) => {
      const i = start + k;
      const createdAt = now - Math.floor((i / SUBMISSIONS) * span);
      const spam = i % SPAM_EVERY === 0;
      return {
        id: idAt(createdAt),
        formId,
        workspaceId,
        data: JSON.stringify({ name: `Visitor ${i}`, email: `visitor${i}@example.net`, message: `Message number ${i}` }),
        status: spam ? ('spam' as const) : ('accepted' as const),
        emailControls: null,
        spamReasons: spam ? JSON.stringify(['Seeded as spam.']) : null,
        createdAt,
      };
    });
    await ctx.database.db.insertInto('submissions').values(rows).execute();
  }
  // the same sums the writer keeps per batch (and migration 0014 made from existing rows)
  await sql`
    INSERT INTO daily_counts (form_id, workspace_id, day, accepted, spam, last_at)
    SELECT form_id, workspace_id, created_at / 86400000,
           SUM(CASE WHEN status = 'spam' THEN 0 ELSE 1 END), SUM(CASE WHEN status = 'spam' THEN 1 ELSE 0 END), MAX(created_at)
    FROM submissions WHERE form_id = ${formId} GROUP BY form_id, workspace_id, created_at / 86400000`.execute(ctx.database.db);
}

async function measure(call: () => Promise<unknown>): Promise<QueryFigures> {
  for (let i = 0; i < WARMUP_CALLS; i++) await call();
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now();
    await call();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => Math.round(times[Math.min(times.length - 1, Math.floor(q * times.length))]! * 100) / 100;
  return { calls: CALLS, p50Ms: at(0.5), p99Ms: at(0.99) };
}
