import { sql, type Transaction } from 'kysely';
import type { Database } from '../db/database.js';
import { GroupCommit } from '../db/group-commit.js';
import type { DB } from '../db/schema/index.js';
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
  // NOTE: tries that end together are recorded in one transaction: a commit per try was most of
  // the cost of a delivery on SQLite.
  private readonly tries: GroupCommit<FinishedTry, boolean>;

  constructor(private readonly database: Database) {
    this.tries = new GroupCommit(database, database.dialect === 'postgres' ? recordInOneUpdate : record);
  }

  /** Claims up to `limit` due jobs for `leaseMs`; a job no other worker holds is due once run_at has come. */
  async claim(limit: number, now: number, leaseMs: number): Promise<Job[]> {
    const due = (db: Database['db']) =>
      db
        .selectFrom('jobs')
        .select('id')
        .where('status', '=', 'pending')
        .where('runAt', '<=', now)
        .where((eb) => eb.or([eb('leaseUntil', 'is', null), eb('leaseUntil', '<', now)]))
        .orderBy('runAt')
        .limit(limit);
    const lease = (db: Database['db'], ids: ReturnType<typeof due>) =>
      db
        .updateTable('jobs')
        .set((eb) => ({ leaseUntil: now + leaseMs, attempts: eb('attempts', '+', 1), updatedAt: now }))
        .where('id', 'in', ids)
        .returningAll()
        .execute();

    // NOTE: one statement, so it is atomic across instances without a transaction around it (one
    // round trip). On PostgreSQL, rows another instance is claiming right now are skipped, not waited
    // for, so that two instances never hold the same job and never block each other; SQLite
    // serialises writers.
    const { db, dialect } = this.database;
    const rows = await lease(db, dialect === 'postgres' ? due(db).forUpdate().skipLocked() : due(db));
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

interface FinishedTry {
  job: Job;
  result: AttemptResult;
}

/** Writes the tries' attempt rows and moves each job on; says per try whether its lease still held. */
async function record(trx: Transaction<DB>, tries: FinishedTry[]): Promise<boolean[]> {
  await insertAttempts(trx, tries);
  const kept: boolean[] = [];
  for (const { job, result } of tries) {
    const updated = await trx
      .updateTable('jobs')
      .set({ ...nextState(result), leaseUntil: null, updatedAt: result.finishedAt })
      // `attempts` fences: it grows with every claim, so a stale worker's write matches nothing.
      .where('id', '=', job.id)
      .where('attempts', '=', job.attempt)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    kept.push(updated.numUpdatedRows > 0n);
  }
  return kept;
}

/**
 * record's PostgreSQL form: every job of the batch moves on in one UPDATE … FROM (VALUES …), since
 * each statement is a round trip there (a try's own UPDATE was most of the cost of recording it).
 */
async function recordInOneUpdate(trx: Transaction<DB>, tries: FinishedTry[]): Promise<boolean[]> {
  await insertAttempts(trx, tries);
  const rows = tries.map(({ job, result }) => {
    const next = nextState(result);
    const runAt = 'runAt' in next ? next.runAt : null;
    return sql`(${job.id}, ${job.attempt}::int, ${next.status}, ${runAt}::bigint, ${next.lastError}::text, ${result.finishedAt}::bigint)`;
  });
  const { rows: moved } = await sql<{ id: string }>`
    UPDATE jobs SET status = v.status, run_at = COALESCE(v.run_at, jobs.run_at), last_error = v.last_error, lease_until = NULL, updated_at = v.updated_at
    FROM (VALUES ${sql.join(rows)}) AS v (id, attempts, status, run_at, last_error, updated_at)
    WHERE jobs.id = v.id AND jobs.attempts = v.attempts AND jobs.status = 'pending'
    RETURNING jobs.id`.execute(trx);
  const kept = new Set(moved.map((row) => row.id));
  return tries.map(({ job }) => kept.has(job.id));
}

async function insertAttempts(trx: Transaction<DB>, tries: FinishedTry[]): Promise<void> {
  await trx
    .insertInto('jobAttempts')
    .values(
      tries.map(({ job, result }) => ({
        id: newId(),
        jobId: job.id,
        startedAt: result.startedAt,
        finishedAt: result.finishedAt,
        outcome: result.outcome,
        statusCode: result.statusCode ?? null,
        error: result.error ?? null,
      })),
    )
    .execute();
}

/** Where a try leaves its job: done, due again at retryAt, or failed for good. */
function nextState(result: AttemptResult) {
  return result.outcome === 'ok'
    ? { status: 'done' as const, lastError: null }
    : result.outcome === 'retry'
      ? { status: 'pending' as const, runAt: result.retryAt!, lastError: result.error ?? null }
      : { status: 'failed' as const, lastError: result.error ?? null };
}

function toJob(row: JobRow): Job {
  return {
    id: row.id,
    kind: row.kind,
    payload: fromJson(row.payload),
    attempt: row.attempts,
    submissionId: row.submissionId,
    idempotencyKey: row.idempotencyKey,
  };
}
