import { toJson, type Queryable } from '../db/database.js';
import { newId } from '../ids.js';

export interface JobToEnqueue {
  /** The channel that delivers it, e.g. 'email'. */
  kind: string;
  payload: unknown;
  /** Insert the submission first: the column references it. */
  submissionId?: string | null;
  /** Epoch ms; now when omitted. */
  runAt?: number;
  /** Defaults to the submission id, or else the job id. */
  idempotencyKey?: string;
}

/**
 * Writes a job in the caller's transaction, so it exists exactly when what caused it commits
 * (the transactional outbox); a worker sends it later. Returns the job id.
 */
export async function enqueueJob(db: Queryable, job: JobToEnqueue): Promise<string> {
  const [id] = await enqueueJobs(db, [job]);
  return id!;
}

// 11 parameters a row: far below both dialects' limits on the parameters of one statement.
const ROWS_PER_INSERT = 500;

/** Writes several jobs as enqueueJob does, in as few statements as possible (a batch of submissions). */
export async function enqueueJobs(db: Queryable, jobs: JobToEnqueue[]): Promise<string[]> {
  const now = Date.now();
  const rows = jobs.map((job) => {
    const id = newId();
    return {
      id,
      kind: job.kind,
      payload: toJson(job.payload),
      status: 'pending' as const,
      runAt: job.runAt ?? now,
      leaseUntil: null,
      lastError: null,
      submissionId: job.submissionId ?? null,
      idempotencyKey: job.idempotencyKey ?? job.submissionId ?? id,
      createdAt: now,
      updatedAt: now,
    };
  });
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    await db.insertInto('jobs').values(rows.slice(start, start + ROWS_PER_INSERT)).execute();
  }
  return rows.map((row) => row.id);
}
