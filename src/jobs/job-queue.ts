import { CompiledQuery, sql } from 'kysely';
import type { Database, Dialect } from '../db/database.js';
import { GroupCommit } from '../db/group-commit.js';
import { fromJson, toJson } from '../db/database.js';
import type { AttemptOutcome } from '../db/schema/job.js';
import { nameStatement } from '../db/prepared-query.js';
import { newId } from '../ids.js';
import type { Job } from './channels/channel.js';
import { holdsOneTimeLink, sentWithoutLink } from './channels/email.js';
import { claimQuery, type ClaimedRow, type ClaimQuery, type DestinationAllowance, type LaneLimits } from './claim-query.js';
import { LANES, type Lane } from './lanes.js';

/** How a try ended, as the worker decided it. */
export interface AttemptResult {
  outcome: AttemptOutcome;
  startedAt: number;
  finishedAt: number;
  /** When to try again (outcome 'retry'). */
  retryAt?: number;
  /** The receiver asked not to be tried before this (its Retry-After, outcome 'retry'): no success elsewhere brings the job forward sooner. */
  notBefore?: number;
  /** Where the try went, when its channel read that at send time (a webhook's current URL). */
  target?: string;
  statusCode?: number;
  error?: string;
  /** What the receiver answered a try that went through (the SMTP reply line). */
  response?: string;
  /** The `.eml` file an email was written to instead of sent (no SMTP server configured). */
  writtenTo?: string;
}

/** A claimed job, with what the worker needs besides what its channel sees. */
export interface ClaimedJob extends Job {
  lane: Lane;
  /** See jobs/lanes.ts; null for a job enqueued before destinations were kept. */
  destination: string | null;
  /** When this claim took it (its `try_started_at`): with `attempt`, what fences a stale worker out. */
  claimedAt: number;
}

/**
 * The jobs table as the workers use it: claim due jobs under a lease, renew the leases of jobs
 * under way, record how a try ended, give back jobs claimed but not started. With claim-query.ts,
 * the only place where the worker's SQL differs by dialect.
 */
export class JobQueue {
  // NOTE: tries that end together are recorded together: a commit per try was most of the cost of
  // a delivery on SQLite.
  private readonly tries: GroupCommit<FinishedTry, boolean>;

  private readonly claimDue: ClaimQuery;

  constructor(private readonly database: Database) {
    this.tries = new GroupCommit((tries) => record(database, tries));
    this.claimDue = claimQuery(database);
  }

  /**
   * Claims due jobs for `leaseMs`, up to `limits` of each lane (a number: that many of every lane),
   * and webhooks of each destination up to its `allowance` (DESTINATION_LIMIT where it names none);
   * a job no other worker holds is due once run_at has come. A try cut off by a crash (its lease
   * ran out while it was under way) is recorded as interrupted.
   */
  async claim(limits: LaneLimits | number, now: number, leaseMs: number, allowance: DestinationAllowance = {}): Promise<ClaimedJob[]> {
    const perLane = typeof limits === 'number' ? Object.fromEntries(LANES.map((lane) => [lane, limits])) : limits;
    if (!LANES.some((lane) => (perLane[lane] ?? 0) > 0)) return [];
    const rows = await this.claimDue.run(perLane, allowance, now, now + leaseMs);
    // Intake answers a batch once it is flushed, but its rows are visible before: never deliver a
    // submission that a power cut could still take back.
    if (rows.length > 0) await this.database.whenDurable();
    return rows.sort((a, b) => a.runAt - b.runAt).map((row) => toJob(row, now));
  }

  /**
   * Extends the leases of jobs still under way to `now + leaseMs` (the worker's heartbeat), so that a
   * lease can be short: a dead worker's jobs are taken over soon. Returns the ids whose lease held;
   * a job missing from it was taken over by another worker, which now decides its fate.
   */
  async renew(jobs: readonly ClaimedJob[], now: number, leaseMs: number): Promise<Set<string>> {
    if (jobs.length === 0) return new Set();
    const held = sql.join(jobs.map((job) => sql`(${job.id}, CAST(${job.attempt} AS integer), CAST(${job.claimedAt} AS bigint))`));
    // A renewal lost in a power cut is harmless, so it skips the fsync.
    const renewed = await this.database.withoutFsync((db) =>
      sql<{ id: string }>`WITH held (id, attempts, try_started_at) AS (VALUES ${held})
        UPDATE jobs SET lease_until = ${now + leaseMs} FROM held
        WHERE jobs.id = held.id AND jobs.attempts = held.attempts AND jobs.try_started_at = held.try_started_at AND jobs.status = 'pending'
        RETURNING jobs.id`.execute(db),
    );
    return new Set(renewed.rows.map((row) => row.id));
  }

  /**
   * Records the try and moves the job on. Returns false when the job was meanwhile claimed by another
   * worker (this worker's lease had expired): then that worker decides its fate.
   * Tries that end while others are being recorded are recorded together, in one transaction.
   */
  finish(job: ClaimedJob, result: AttemptResult): Promise<boolean> {
    return this.tries.add({ job, result });
  }

  /** Gives back jobs claimed but never started (on shutdown), uncounting the try. */
  async release(jobs: Job[], now: number): Promise<void> {
    for (const job of jobs) {
      await this.database.db
        .updateTable('jobs')
        .set((eb) => ({ leaseUntil: null, tryStartedAt: null, attempts: eb('attempts', '-', 1), updatedAt: now }))
        .where('id', '=', job.id)
        .where('attempts', '=', job.attempt)
        .where('status', '=', 'pending')
        .execute();
    }
  }
}

interface FinishedTry {
  job: ClaimedJob;
  result: AttemptResult;
}

/**
 * Records a batch of tries: their attempt rows, and each job moved on by one UPDATE … FROM the
 * tries' values (a statement per try was most of the cost of recording one). Says per try whether
 * its lease still held. A success to a destination brings its backed-off jobs forward. On
 * PostgreSQL it is all one statement, atomic without a transaction around it, since each statement
 * there is a round trip; SQLite runs them in one transaction, without the fsync
 * (Database.withoutFsync): a record lost in a power cut means the job is delivered again.
 */
async function record(database: Database, tries: FinishedTry[]): Promise<boolean[]> {
  const revive = revival(tries, database.dialect);
  const moved =
    database.dialect === 'postgres'
      ? await database.db.executeQuery<{ id: string }>(CompiledQuery.raw(RECORD_ON_POSTGRES, recordParameters(tries, revive)))
      : await database.withoutFsync((db) =>
          db.transaction().execute(async (trx) => {
            await insertAttempts(tries).execute(trx);
            const moved = await sql<{ id: string }>`WITH ${triedValues(tries)} ${moveJobsOn()}`.execute(trx);
            if (revive) await bringForward(revive).execute(trx);
            return moved;
          }),
        );
  const kept = new Set(moved.rows.map((row) => row.id));
  await removeSentLinks(database, tries, kept);
  return tries.map(({ job }) => kept.has(job.id));
}

/**
 * Emails holding a one-time link (a password reset, an invitation) keep no link once sent. NOTE: after
 * the record, not in it: a crash in between leaves a link in the row, which still expires on its own.
 */
async function removeSentLinks(database: Database, tries: FinishedTry[], kept: Set<string>): Promise<void> {
  for (const { job, result } of tries) {
    if (result.outcome !== 'ok' || !kept.has(job.id) || !holdsOneTimeLink(job.kind, job.payload)) continue;
    await database.db
      .updateTable('jobs')
      .set({ payload: toJson(sentWithoutLink(job.payload)) })
      .where('id', '=', job.id)
      .where('status', '=', 'done')
      .execute();
  }
}

/** The destinations that just answered, and when; null when no try of the batch succeeded. */
function revival(tries: FinishedTry[], dialect: Dialect): { destinations: string[]; at: number; tried: string[]; dialect: Dialect } | null {
  const succeeded = tries.filter(({ job, result }) => result.outcome === 'ok' && job.destination !== null);
  if (succeeded.length === 0) return null;
  return {
    dialect,
    destinations: [...new Set(succeeded.map(({ job }) => job.destination!))],
    at: Math.max(...succeeded.map(({ result }) => result.finishedAt)),
    tried: tries.map(({ job }) => job.id),
  };
}

/**
 * Once a destination answers again, its jobs waiting out a backoff go at once instead of each at the
 * end of its own: after an outage, the queue empties as soon as the destination is back. Jobs of a
 * destination that stays down keep their backoff (nothing succeeded there), jobs of this batch
 * keep where their own try left them, and a job whose receiver asked to wait (Retry-After, kept in
 * `not_before`) waits as asked: one address of an origin answering says nothing of another's limit. The literals let the partial index jobs_backed_off serve it.
 */
function bringForward({ destinations, at, tried, dialect }: NonNullable<ReturnType<typeof revival>>) {
  const waiting = sql`SELECT id FROM jobs
    WHERE status = 'pending' AND last_error IS NOT NULL AND destination IN (${sql.join(destinations)})
    AND run_at > ${at} AND (lease_until IS NULL OR lease_until < ${at}) AND id NOT IN (${sql.join(tried)})
    AND (not_before IS NULL OR not_before <= ${at})`;
  // NOTE: on PostgreSQL, rows another instance is claiming or bringing forward are skipped, never
  // waited for: two records waiting on each other's rows would deadlock, and one would be lost.
  return sql`UPDATE jobs SET run_at = ${at} WHERE id IN (${dialect === 'postgres' ? sql`${waiting} FOR UPDATE SKIP LOCKED` : waiting})`;
}

/** `tried`: per try, its job, the claim it was made under and where it leaves the job. */
function triedValues(tries: FinishedTry[]) {
  const rows = tries.map(({ job, result }) => {
    const next = nextState(result);
    const runAt = 'runAt' in next ? next.runAt : null;
    return sql`(${job.id}, CAST(${job.attempt} AS integer), CAST(${job.claimedAt} AS bigint), ${next.status}, CAST(${runAt} AS bigint), CAST(${next.lastError} AS text), CAST(${result.finishedAt} AS bigint), CAST(${notBeforeOf(result)} AS bigint))`;
  });
  return sql`tried (id, attempts, try_started_at, status, run_at, last_error, updated_at, not_before) AS (VALUES ${sql.join(rows)})`;
}

// `attempts` fences: it grows with every claim, so a stale worker's try matches nothing; and
// `try_started_at` too, since `deliveries retry` starts the count again.
const MOVE_JOBS_ON = `UPDATE jobs SET status = tried.status, run_at = COALESCE(tried.run_at, jobs.run_at), last_error = tried.last_error, lease_until = NULL, try_started_at = NULL, updated_at = tried.updated_at, not_before = tried.not_before
    FROM tried WHERE jobs.id = tried.id AND jobs.attempts = tried.attempts AND jobs.try_started_at = tried.try_started_at AND jobs.status = 'pending'
    RETURNING jobs.id`;
const moveJobsOn = () => sql.raw(MOVE_JOBS_ON);

function insertAttempts(tries: FinishedTry[]) {
  const rows = tries.map(
    ({ job, result }) =>
      sql`(${newId()}, ${job.id}, CAST(${result.startedAt} AS bigint), CAST(${result.finishedAt} AS bigint), ${result.outcome}, CAST(${result.statusCode ?? null} AS integer), CAST(${result.error ?? null} AS text), CAST(${result.response ?? null} AS text), CAST(${result.writtenTo ?? null} AS text), CAST(${result.target ?? null} AS text))`,
  );
  return sql`INSERT INTO job_attempts (id, job_id, started_at, finished_at, outcome, status_code, error, response, written_to, target) VALUES ${sql.join(rows)}`;
}

/**
 * `record` on PostgreSQL as one statement whose text never changes, so each connection parses and
 * plans it once (a prepared statement): the tries travel as arrays, not as a VALUES list whose
 * length made a new text for every batch size. The same steps as on SQLite: move the jobs on, insert
 * the attempts, bring forward the jobs of destinations that answered ($18: none when no try succeeded)
 * but those whose receiver asked for a later time. $19 and $20 (not_before, target) came last (migration 0026).
 */
const RECORD_ON_POSTGRES = `WITH tried (id, attempts, try_started_at, status, run_at, last_error, updated_at, not_before) AS (
    SELECT * FROM unnest($1::text[], $2::int4[], $3::int8[], $4::text[], $5::int8[], $6::text[], $7::int8[], $19::int8[])
  ), moved AS (${MOVE_JOBS_ON}
  ), recorded AS (
    INSERT INTO job_attempts (id, job_id, started_at, finished_at, outcome, status_code, error, response, written_to, target)
    SELECT * FROM unnest($8::text[], $9::text[], $10::int8[], $11::int8[], $12::text[], $13::int4[], $14::text[], $15::text[], $16::text[], $20::text[])
  ), revived AS (
    UPDATE jobs SET run_at = $17::int8 WHERE id IN (SELECT id FROM jobs
      WHERE status = 'pending' AND last_error IS NOT NULL AND destination = ANY ($18::text[])
      AND run_at > $17::int8 AND (lease_until IS NULL OR lease_until < $17::int8) AND id <> ALL ($1::text[])
      AND (not_before IS NULL OR not_before <= $17::int8)
      FOR UPDATE SKIP LOCKED)
  )
  SELECT id FROM moved`;
nameStatement(RECORD_ON_POSTGRES);

function recordParameters(tries: FinishedTry[], revive: ReturnType<typeof revival>): unknown[] {
  const next = tries.map(({ result }) => nextState(result));
  return [
    tries.map(({ job }) => job.id),
    tries.map(({ job }) => job.attempt),
    tries.map(({ job }) => job.claimedAt),
    next.map((state) => state.status),
    next.map((state) => ('runAt' in state ? state.runAt : null)),
    next.map((state) => state.lastError),
    tries.map(({ result }) => result.finishedAt),
    tries.map(() => newId()),
    tries.map(({ job }) => job.id),
    tries.map(({ result }) => result.startedAt),
    tries.map(({ result }) => result.finishedAt),
    tries.map(({ result }) => result.outcome),
    tries.map(({ result }) => result.statusCode ?? null),
    tries.map(({ result }) => result.error ?? null),
    tries.map(({ result }) => result.response ?? null),
    tries.map(({ result }) => result.writtenTo ?? null),
    revive?.at ?? 0,
    revive?.destinations ?? [],
    tries.map(({ result }) => notBeforeOf(result)),
    tries.map(({ result }) => result.target ?? null),
  ];
}

/** The wait a receiver asked for, kept while the job waits for its retry; cleared by any other outcome. */
function notBeforeOf(result: AttemptResult): number | null {
  return result.outcome === 'retry' ? (result.notBefore ?? null) : null;
}

/** Where a try leaves its job: done, due again at retryAt, or failed for good. */
function nextState(result: AttemptResult) {
  return result.outcome === 'ok'
    ? { status: 'done' as const, lastError: null }
    : result.outcome === 'retry'
      ? { status: 'pending' as const, runAt: result.retryAt!, lastError: result.error ?? null }
      : { status: 'failed' as const, lastError: result.error ?? null };
}

function toJob(row: ClaimedRow, claimedAt: number): ClaimedJob {
  return {
    claimedAt,
    lane: row.lane as Lane,
    destination: row.destination,
    id: row.id,
    kind: row.kind,
    payload: fromJson(row.payload),
    attempt: row.attempts,
    submissionId: row.submissionId,
    idempotencyKey: row.idempotencyKey,
  };
}
