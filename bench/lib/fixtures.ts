import { sql } from 'kysely';
import { pino } from 'pino';
import { buildConfig } from '../../src/config/config.js';
import { openContext, type AppContext } from '../../src/context.js';
import { fieldsFromPairs } from '../../src/intake/fields.js';
import { IntakePipeline } from '../../src/intake/pipeline.js';
import { SubmissionWriter } from '../../src/intake/writer.js';
import { SearchIndexer } from '../../src/jobs/search-indexer.js';
import type { FormSettings } from '../../src/services/forms.js';
import { SpamScorer } from '../../src/spam/score.js';
import type { BenchDatabase } from './databases.js';

const ALL_SCOPES = ['workspaces:read', 'workspaces:write', 'forms:read', 'forms:write', 'submissions:read', 'submissions:write'];

/** An upgraded workspace and an API token of its owner, made as the README's admin commands make them. */
export interface Account {
  userId: string;
  workspaceId: string;
  token: string;
}

/** Opens the database with Formgate's own context (it migrates), runs `fn`, and closes it. */
export async function withContext<T>(database: BenchDatabase, fn: (ctx: AppContext) => Promise<T>): Promise<T> {
  // private webhooks allowed: the benchmark's receiver is on loopback (serve runs with the same setting)
  const ctx = await openContext(buildConfig({ databaseUrl: database.url, dataDir: database.dataDir, allowPrivateWebhooks: 'true' }));
  try {
    return await fn(ctx);
  } finally {
    await ctx.close();
  }
}

/** `users create`, `workspaces set-plan … BUNDLE_50000`, `tokens create`, through the same services. */
export async function createAccount(ctx: AppContext, email: string): Promise<Account> {
  const { user, workspace } = await ctx.users.createUser(email);
  // an account that starts on the plan: no plan-change email among the jobs the drains count
  await ctx.workspaces.setPlan(workspace.id, 'BUNDLE_50000', { tellOwners: false });
  const { secret } = await ctx.tokens.createToken(user.id, { name: 'bench', scopes: ALL_SCOPES });
  return { userId: user.id, workspaceId: workspace.id, token: secret };
}

export async function createForm(ctx: AppContext, account: Account, settings: FormSettings & { name: string }): Promise<string> {
  return (await ctx.forms.createForm(account.userId, account.workspaceId, settings)).id;
}

/**
 * Stores `count` submissions to a form through the intake pipeline the submit surface uses (spam
 * filter, quota, group-commit writer, delivery jobs), without HTTP: the rows are exactly what a
 * visitor's post leaves, and seeding 50,000 takes seconds instead of minutes.
 */
export async function seedSubmissions(ctx: AppContext, formId: string, count: number, fields: (i: number) => [string, string][]): Promise<void> {
  await seedSpread(ctx, () => formId, count, fields);
}

/** The intake pipeline and group-commit writer as serve has them (its plan rules: team mode, no allowance), without HTTP. */
export function intakePipeline(ctx: AppContext): IntakePipeline {
  const writer = new SubmissionWriter(ctx.database, async () => undefined, ctx.plans);
  return new IntakePipeline(ctx.forms, writer, new SpamScorer(), { urls: ctx.config.captchaVerifyUrls, altcha: ctx.altcha }, pino({ level: 'silent' }));
}

/** As seedSubmissions, the i-th submission to the form `formOf(i)`: one stream spread over several forms, interleaved in time. */
export async function seedSpread(ctx: AppContext, formOf: (i: number) => string, count: number, fields: (i: number) => [string, string][]): Promise<void> {
  const pipeline = intakePipeline(ctx);
  // at most 1% of the stream at once: the writer commits a batch form by form, so small seeds still interleave their forms in time
  const BATCH = Math.max(1, Math.min(500, Math.floor(count / 100)));
  for (let start = 0; start < count; start += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, count - start) }, (_, k) => {
      // each visitor from its own address, as on a real site (the spam filter counts repeats per address)
      const i = start + k;
      return pipeline.receive(formOf(i), fieldsFromPairs(fields(i)), `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
    });
    const received = await Promise.all(batch);
    const notAccepted = received.filter((r) => r.outcome !== 'accepted').length;
    if (notAccepted > 0) throw new Error(`seeding: ${notAccepted} submissions were not accepted (spam or held)`);
  }
}

/**
 * Brings the database after seeding to where a running instance has it within a minute of a bulk
 * insert: PostgreSQL's table vacuumed and its planner statistics refreshed (autovacuum does both
 * after as many inserts), SQLite's search backlog indexed (as `formgate serve`'s indexer does).
 * Measuring before that would measure plans made for an empty table, searches checking 50,000 rows
 * one by one, and, on PostgreSQL, a visibility map still empty: every count a search makes of the
 * rows left read each row from the table (13.6 ms on average, p99 81–93 ms against 49–57 ms).
 */
export async function settle(ctx: AppContext): Promise<void> {
  if (ctx.database.dialect === 'postgres') await sql`VACUUM ANALYZE`.execute(ctx.database.db);
  else await new SearchIndexer(ctx.database).indexAll();
}
