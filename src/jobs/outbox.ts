import { toJson, type Queryable } from '../db/database.js';
import { insertRows } from '../db/insert-rows.js';
import { newId } from '../ids.js';
import { destinationOf, laneOf } from './lanes.js';

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

const JOB_COLUMNS = [
  'id',
  'kind',
  'payload',
  'status',
  'runAt',
  'leaseUntil',
  'lastError',
  'lane',
  'destination',
  'submissionId',
  'idempotencyKey',
  'createdAt',
  'updatedAt',
] as const;

/** Writes several jobs as enqueueJob does, in as few statements as possible (a batch of submissions). */
export async function enqueueJobs(db: Queryable, jobs: JobToEnqueue[]): Promise<string[]> {
  const rows = jobRowsOf(jobs);
  await insertRows(db, 'jobs', JOB_COLUMNS, rows);
  return rows.map((row) => row.id);
}

/** The rows that enqueue `jobs`, pending from now: for a writer that inserts them itself (intake on PostgreSQL). */
export function jobRowsOf(jobs: JobToEnqueue[]) {
  const now = Date.now();
  return jobs.map((job) => {
    const id = newId();
    return {
      id,
      kind: job.kind,
      payload: toJson(job.payload),
      status: 'pending' as const,
      runAt: job.runAt ?? now,
      leaseUntil: null,
      lastError: null,
      lane: laneOf(job.kind),
      destination: destinationOf(job.kind, job.payload),
      submissionId: job.submissionId ?? null,
      idempotencyKey: job.idempotencyKey ?? job.submissionId ?? id,
      createdAt: now,
      updatedAt: now,
    };
  });
}
