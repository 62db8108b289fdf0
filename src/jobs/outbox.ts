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
  const id = newId();
  const now = Date.now();
  await db
    .insertInto('jobs')
    .values({
      id,
      kind: job.kind,
      payload: toJson(job.payload),
      status: 'pending',
      runAt: job.runAt ?? now,
      leaseUntil: null,
      lastError: null,
      submissionId: job.submissionId ?? null,
      idempotencyKey: job.idempotencyKey ?? job.submissionId ?? id,
      createdAt: now,
      updatedAt: now,
    })
    .execute();
  return id;
}
