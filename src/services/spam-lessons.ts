import { sql, type Transaction } from 'kysely';
import { fromJson, type Database } from '../db/database.js';
import { KEPT_AT_MOST_MS, KeptRows } from '../db/kept-rows.js';
import type { DB } from '../db/schema/index.js';
import type { Counts, TokenCount } from '../spam/learned-filter.js';
import { scannedFields } from '../spam/score.js';
import { tokenHash } from '../spam/token-hash.js';
import { tokensOf } from '../spam/tokens.js';

/** The most token rows a workspace keeps: past it, the ones learned longest ago go first. */
export const MAX_LEARNED_TOKENS = 10_000;
/** The workspaces whose lessons are kept in memory at once (about 160 KB each at the bound). */
const KEPT_WORKSPACES = 200;
// rows per INSERT: five values each, well within both databases' limits on parameters
const UPSERT_CHUNK = 1_000;

export type Lesson = 'spam' | 'ham';

/** A submission as a lesson reads it: its fields and what was learned from it before. */
export interface LessonSource {
  id: string;
  data: unknown;
  spamLesson: Lesson | null;
}

/**
 * What each workspace taught the spam filter by marking submissions ("Mark as spam", "Not spam"),
 * as counts of hashed tokens (migration 0029). The scorer reads a workspace's counts from memory,
 * kept while the `spam_models` change count stays put: a mark on any instance moves it, so the
 * next submission anywhere is judged with what was just learned.
 */
export class SpamLessons {
  private readonly kept: KeptRows<LearnedCounts>;

  constructor(private readonly database: Database) {
    this.kept = new KeptRows(
      () => database.changeCount('spam_models'),
      (workspaceId) => this.read(workspaceId),
      KEPT_AT_MOST_MS,
      undefined,
      KEPT_WORKSPACES,
    );
  }

  /** The workspace's lessons, or null when it has marked nothing. */
  async countsFor(workspaceId: string): Promise<Counts | null> {
    const counts = await this.kept.get(workspaceId);
    return counts && counts.spamMessages + counts.hamMessages > 0 ? counts : null;
  }

  // NOTE: a workspace that learned nothing is kept too (as empty counts): most are, and each submission would otherwise ask.
  private async read(workspaceId: string): Promise<LearnedCounts> {
    const model = await this.database.db.selectFrom('spamModels').selectAll().where('workspaceId', '=', workspaceId).executeTakeFirst();
    if (!model) return new LearnedCounts(0, 0, []);
    const rows = await this.database.db
      .selectFrom('spamTokens')
      .select(['token', 'spam', 'ham'])
      .where('workspaceId', '=', workspaceId)
      .limit(MAX_LEARNED_TOKENS * 2)
      .execute();
    return new LearnedCounts(model.spamMessages, model.hamMessages, rows);
  }
}

/** A workspace's counts as sorted arrays: compact, and a token found by binary search. */
class LearnedCounts implements Counts {
  private readonly hashes: Float64Array;
  private readonly spam: Int32Array;
  private readonly ham: Int32Array;

  constructor(
    readonly spamMessages: number,
    readonly hamMessages: number,
    rows: { token: number; spam: number; ham: number }[],
  ) {
    const sorted = rows.map((row) => ({ ...row, token: Number(row.token) })).sort((a, b) => a.token - b.token);
    this.hashes = Float64Array.from(sorted, (row) => row.token);
    this.spam = Int32Array.from(sorted, (row) => row.spam);
    this.ham = Int32Array.from(sorted, (row) => row.ham);
  }

  count(token: string): TokenCount | undefined {
    const hash = tokenHash(token);
    let low = 0;
    let high = this.hashes.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const at = this.hashes[middle]!;
      if (at === hash) return { spam: this.spam[middle]!, ham: this.ham[middle]! };
      if (at < hash) low = middle + 1;
      else high = middle - 1;
    }
    return undefined;
  }
}

/**
 * Teaches the filter that `submissions` (all of `workspaceId`) are `lesson`, inside the caller's
 * transaction: each is counted once, and one learned the other way before is moved, not counted twice.
 */
export async function teach(trx: Transaction<DB>, workspaceId: string, submissions: readonly LessonSource[], lesson: Lesson, now = Date.now()): Promise<void> {
  const changes = new LessonChanges();
  const taught: string[] = [];
  for (const submission of submissions) {
    if (submission.spamLesson === lesson) continue;
    if (submission.spamLesson !== null) changes.add(submission.data, submission.spamLesson, -1);
    changes.add(submission.data, lesson, 1);
    taught.push(submission.id);
  }
  if (taught.length === 0) return;
  await changes.apply(trx, workspaceId, now);
  await trx.updateTable('submissions').set({ spamLesson: lesson }).where('id', 'in', taught).execute();
}

/** Takes back what was learned from `submissions` (erasing the person who sent them), inside the caller's transaction. */
export async function unlearn(trx: Transaction<DB>, workspaceId: string, submissions: readonly LessonSource[], now = Date.now()): Promise<void> {
  const changes = new LessonChanges();
  const untaught: string[] = [];
  for (const submission of submissions) {
    if (submission.spamLesson === null) continue;
    changes.add(submission.data, submission.spamLesson, -1);
    untaught.push(submission.id);
  }
  if (untaught.length === 0) return;
  await changes.apply(trx, workspaceId, now);
  await trx.updateTable('submissions').set({ spamLesson: null }).where('id', 'in', untaught).execute();
}

/** The changes to a workspace's counts that a batch of lessons makes, summed per token before they are written. */
class LessonChanges {
  private readonly tokens = new Map<number, { spam: number; ham: number }>();
  private spamMessages = 0;
  private hamMessages = 0;
  private removes = false;

  add(data: unknown, lesson: Lesson, sign: 1 | -1): void {
    if (sign < 0) this.removes = true;
    if (lesson === 'spam') this.spamMessages += sign;
    else this.hamMessages += sign;
    const fields = data !== null && typeof data === 'object' ? (data as Record<string, unknown>) : fromJson<Record<string, unknown>>(String(data));
    for (const token of tokensOf(scannedFields(fields ?? {}))) {
      const hash = tokenHash(token);
      const change = this.tokens.get(hash) ?? { spam: 0, ham: 0 };
      change[lesson] += sign;
      this.tokens.set(hash, change);
    }
  }

  async apply(trx: Transaction<DB>, workspaceId: string, now: number): Promise<void> {
    const rows = [...this.tokens].filter(([, change]) => change.spam !== 0 || change.ham !== 0);
    for (let start = 0; start < rows.length; start += UPSERT_CHUNK) {
      const values = rows
        .slice(start, start + UPSERT_CHUNK)
        .map(([token, change]) => ({ workspaceId, token, spam: change.spam, ham: change.ham, learnedAt: now }));
      await trx
        .insertInto('spamTokens')
        .values(values)
        .onConflict((oc) =>
          oc.columns(['workspaceId', 'token']).doUpdateSet({
            spam: sql`CASE WHEN spam_tokens.spam + excluded.spam > 0 THEN spam_tokens.spam + excluded.spam ELSE 0 END`,
            ham: sql`CASE WHEN spam_tokens.ham + excluded.ham > 0 THEN spam_tokens.ham + excluded.ham ELSE 0 END`,
            learnedAt: now,
          }),
        )
        .execute();
    }
    if (this.removes) {
      // a count taken back from a row made just now (its old row gone past the bound) starts below nothing: it is nothing
      await trx.updateTable('spamTokens').set({ spam: 0 }).where('workspaceId', '=', workspaceId).where('spam', '<', 0).execute();
      await trx.updateTable('spamTokens').set({ ham: 0 }).where('workspaceId', '=', workspaceId).where('ham', '<', 0).execute();
      await trx.deleteFrom('spamTokens').where('workspaceId', '=', workspaceId).where('spam', '=', 0).where('ham', '=', 0).execute();
    }
    const tokens = await keepWithinBound(trx, workspaceId);
    const { spamMessages, hamMessages } = this;
    await trx
      .insertInto('spamModels')
      .values({ workspaceId, spamMessages: Math.max(spamMessages, 0), hamMessages: Math.max(hamMessages, 0), tokens })
      .onConflict((oc) =>
        oc.column('workspaceId').doUpdateSet({
          spamMessages: sql`CASE WHEN spam_models.spam_messages + ${spamMessages} > 0 THEN spam_models.spam_messages + ${spamMessages} ELSE 0 END`,
          hamMessages: sql`CASE WHEN spam_models.ham_messages + ${hamMessages} > 0 THEN spam_models.ham_messages + ${hamMessages} ELSE 0 END`,
          tokens,
        }),
      )
      .execute();
  }
}

/** Drops the tokens learned longest ago (the rarest first among equals) past MAX_LEARNED_TOKENS; the count kept. */
async function keepWithinBound(trx: Transaction<DB>, workspaceId: string): Promise<number> {
  const row = await trx
    .selectFrom('spamTokens')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('workspaceId', '=', workspaceId)
    .executeTakeFirstOrThrow();
  const count = Number(row.n);
  if (count <= MAX_LEARNED_TOKENS) return count;
  const oldest = trx
    .selectFrom('spamTokens')
    .select('token')
    .where('workspaceId', '=', workspaceId)
    .orderBy('learnedAt')
    .orderBy(sql`spam + ham`)
    .limit(count - MAX_LEARNED_TOKENS);
  await trx.deleteFrom('spamTokens').where('workspaceId', '=', workspaceId).where('token', 'in', oldest).execute();
  return MAX_LEARNED_TOKENS;
}
