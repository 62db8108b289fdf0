import type { Transaction } from 'kysely';
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
    this.tries = new GroupCommit(database, record);
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
    const lease = (db: Database['db'], ids: string[] | ReturnType<typeof due>) =>
      db
        .updateTable('jobs')
        .set((eb) => ({ leaseUntil: now + leaseMs, attempts: eb('attempts', '+', 1), updatedAt: now }))
        .where('id', 'in', ids)
        .returningAll()
        .execute();

    let rows: JobRow[];
    if (this.database.dialect === 'postgres') {
      // Rows another instance is claiming right now are skipped, not waited for, so that two
      // instances never hold the same job and never block each other.
      rows = await this.database.transaction(async (trx) => {
        const ids = (await due(trx).forUpdate().skipLocked().execute()).map((r) => r.id);
        return ids.length === 0 ? [] : lease(trx, ids);
      });
    } else {
      // NOTE: one statement, so it is atomic even across processes (SQLite serialises writers).
      rows = await lease(this.database.db, due(this.database.db));
    }
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
  const kept: boolean[] = [];
  for (const { job, result } of tries) {
    const next =
      result.outcome === 'ok'
        ? { status: 'done' as const, lastError: null }
        : result.outcome === 'retry'
          ? { status: 'pending' as const, runAt: result.retryAt!, lastError: result.error ?? null }
          : { status: 'failed' as const, lastError: result.error ?? null };
    const updated = await trx
      .updateTable('jobs')
      .set({ ...next, leaseUntil: null, updatedAt: result.finishedAt })
      // `attempts` fences: it grows with every claim, so a stale worker's write matches nothing.
      .where('id', '=', job.id)
      .where('attempts', '=', job.attempt)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    kept.push(updated.numUpdatedRows > 0n);
  }
  return kept;
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
