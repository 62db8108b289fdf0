import { sql } from 'kysely';
import type { Database, Dialect } from '../db/database.js';
import { PreparedQuery } from '../db/prepared-query.js';
import { GroupCommit } from '../db/group-commit.js';
import { fromJson } from '../db/database.js';
import type { AttemptOutcome, JobRow } from '../db/schema/job.js';
import { newId } from '../ids.js';
import type { Job } from './channels/channel.js';

/** How a try ended, as the worker decided it. */
export interface AttemptResult {
  outcome: AttemptOutcome;
  startedAt: number;
  finishedAt: number;
  /** When to try again (outcome 'retry'). */
  retryAt?: number;
  statusCode?: number;
  error?: string;
}

/**
 * The jobs table as the workers use it: claim due jobs under a lease, record how a try ended,
 * give back jobs claimed but not started. The only place where the worker's SQL differs by dialect.
 */
export class JobQueue {
  // NOTE: tries that end together are recorded together: a commit per try was most of the cost of
  // a delivery on SQLite.
  private readonly tries: GroupCommit<FinishedTry, boolean>;

  private readonly claimDue: PreparedQuery<ClaimParams, ClaimedRow>;

  constructor(private readonly database: Database) {
    this.tries = new GroupCommit((tries) => record(database, tries));
    this.claimDue = claimQuery(database.dialect);
  }

  /** Claims up to `limit` due jobs for `leaseMs`; a job no other worker holds is due once run_at has come. */
  async claim(limit: number, now: number, leaseMs: number): Promise<Job[]> {
    // A claim lost in a power cut is harmless, so it skips the fsync.
    const rows = await this.database.withoutFsync((db) => this.claimDue.execute(db, { now, leaseUntil: now + leaseMs, limit }));
    // Intake answers a batch once it is flushed, but its rows are visible before: never deliver a
    // submission that a power cut could still take back.
    if (rows.length > 0) await this.database.whenDurable();
    return rows.sort((a, b) => a.runAt - b.runAt).map(toJob);
  }

  /**
   * Records the try and moves the job on. Returns false when the job was meanwhile claimed by another
   * worker (this worker's lease had expired): then that worker decides its fate.
   * Tries that end while others are being recorded are recorded together, in one transaction.
   */
  finish(job: Job, result: AttemptResult): Promise<boolean> {
    return this.tries.add({ job, result });
  }

  /** Gives back jobs claimed but never started (on shutdown), uncounting the try. */
  async release(jobs: Job[], now: number): Promise<void> {
    for (const job of jobs) {
      await this.database.db
        .updateTable('jobs')
        .set((eb) => ({ leaseUntil: null, attempts: eb('attempts', '-', 1), updatedAt: now }))
        .where('id', '=', job.id)
        .where('attempts', '=', job.attempt)
        .where('status', '=', 'pending')
        .execute();
    }
  }
}

type ClaimParams = { now: number; leaseUntil: number; limit: number };
// named, not `*`: see PreparedQuery
const CLAIMED_COLUMNS = ['id', 'kind', 'payload', 'attempts', 'runAt', 'submissionId', 'idempotencyKey'] as const satisfies readonly (keyof JobRow)[];
type ClaimedRow = Pick<JobRow, (typeof CLAIMED_COLUMNS)[number]>;

/**
 * Leases the due jobs and answers them, in one statement: atomic across instances without a
 * transaction around it (one round trip). On PostgreSQL, rows another instance is claiming right
 * now are skipped, not waited for, so that two instances never hold the same job and never block
 * each other; SQLite serialises writers.
 */
function claimQuery(dialect: Dialect) {
  return new PreparedQuery<ClaimParams, ClaimedRow>((db, p) => {
    const due = db
      .selectFrom('jobs')
      .select('id')
      .where('status', '=', 'pending')
      .where('runAt', '<=', p.now)
      .where((eb) => eb.or([eb('leaseUntil', 'is', null), eb('leaseUntil', '<', p.now)]))
      .orderBy('runAt')
      .limit(p.limit);
    return db
      .updateTable('jobs')
      .set((eb) => ({ leaseUntil: p.leaseUntil, attempts: eb('attempts', '+', 1), updatedAt: p.now }))
      .where('id', 'in', dialect === 'postgres' ? due.forUpdate().skipLocked() : due)
      .returning(CLAIMED_COLUMNS);
  });
}

interface FinishedTry {
  job: Job;
  result: AttemptResult;
}

/**
 * Records a batch of tries: their attempt rows, and each job moved on by one UPDATE … FROM the
 * tries' values (a statement per try was most of the cost of recording one). Says per try whether
 * its lease still held. On PostgreSQL it is all one statement, atomic without a transaction around
 * it, since each statement there is a round trip; SQLite runs the two in one transaction, without
 * the fsync (Database.withoutFsync): a record lost in a power cut means the job is delivered again.
 */
async function record(database: Database, tries: FinishedTry[]): Promise<boolean[]> {
  const moved =
    database.dialect === 'postgres'
      ? await sql<{ id: string }>`
          WITH ${triedValues(tries)}, moved AS (${moveJobsOn()}), recorded AS (${insertAttempts(tries)})
          SELECT id FROM moved`.execute(database.db)
      : await database.withoutFsync((db) =>
          db.transaction().execute(async (trx) => {
            await insertAttempts(tries).execute(trx);
            return sql<{ id: string }>`WITH ${triedValues(tries)} ${moveJobsOn()}`.execute(trx);
          }),
        );
  const kept = new Set(moved.rows.map((row) => row.id));
  return tries.map(({ job }) => kept.has(job.id));
}

/** `tried`: per try, its job, the claim it was made under and where it leaves the job. */
function triedValues(tries: FinishedTry[]) {
  const rows = tries.map(({ job, result }) => {
    const next = nextState(result);
    const runAt = 'runAt' in next ? next.runAt : null;
    return sql`(${job.id}, CAST(${job.attempt} AS integer), ${next.status}, CAST(${runAt} AS bigint), CAST(${next.lastError} AS text), CAST(${result.finishedAt} AS bigint))`;
  });
  return sql`tried (id, attempts, status, run_at, last_error, updated_at) AS (VALUES ${sql.join(rows)})`;
}

// `attempts` fences: it grows with every claim, so a stale worker's try matches nothing.
function moveJobsOn() {
  return sql`UPDATE jobs SET status = tried.status, run_at = COALESCE(tried.run_at, jobs.run_at), last_error = tried.last_error, lease_until = NULL, updated_at = tried.updated_at
    FROM tried WHERE jobs.id = tried.id AND jobs.attempts = tried.attempts AND jobs.status = 'pending'
    RETURNING jobs.id`;
}

function insertAttempts(tries: FinishedTry[]) {
  const rows = tries.map(
    ({ job, result }) =>
      sql`(${newId()}, ${job.id}, CAST(${result.startedAt} AS bigint), CAST(${result.finishedAt} AS bigint), ${result.outcome}, CAST(${result.statusCode ?? null} AS integer), CAST(${result.error ?? null} AS text))`,
  );
  return sql`INSERT INTO job_attempts (id, job_id, started_at, finished_at, outcome, status_code, error) VALUES ${sql.join(rows)}`;
}

/** Where a try leaves its job: done, due again at retryAt, or failed for good. */
function nextState(result: AttemptResult) {
  return result.outcome === 'ok'
    ? { status: 'done' as const, lastError: null }
    : result.outcome === 'retry'
      ? { status: 'pending' as const, runAt: result.retryAt!, lastError: result.error ?? null }
      : { status: 'failed' as const, lastError: result.error ?? null };
}

function toJob(row: ClaimedRow): Job {
  return {
    id: row.id,
    kind: row.kind,
    payload: fromJson(row.payload),
    attempt: row.attempts,
    submissionId: row.submissionId,
    idempotencyKey: row.idempotencyKey,
  };
}
