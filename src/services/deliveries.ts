import type { Kysely } from 'kysely';
import { fromJson, type Database } from '../db/database.js';
import type { DB } from '../db/schema/index.js';
import type { AttemptOutcome, JobRow, JobStatus } from '../db/schema/job.js';
import { ProblemError, validationError } from '../errors.js';
import { CUT_OFF_ERROR } from '../jobs/claim-query.js';

export const JOB_STATUSES: readonly JobStatus[] = ['pending', 'done', 'failed'];

/** One delivery (a job of the outbox) with every try made at it: the delivery log. */
export interface DeliveryRecord {
  id: string;
  kind: string;
  status: JobStatus;
  submissionId: string | null;
  /** Who an email delivery goes to (a notification is one delivery per recipient); null for webhooks and Slack. */
  recipient: string | null;
  attempts: number;
  lastError: string | null;
  nextTryAt: string | null;
  createdAt: string;
  updatedAt: string;
  tries: DeliveryTry[];
}

/**
 * One try: recorded when it ended, or the try under way (`in_progress`, no `finishedAt`), or one
 * whose worker stopped before it ended and whose lease has run out (`interrupted`): recorded as such
 * when the job is claimed again, shown as such before.
 */
export interface DeliveryTry {
  startedAt: string;
  finishedAt: string | null;
  outcome: AttemptOutcome | 'in_progress';
  statusCode: number | null;
  error: string | null;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The delivery log and its one repair: what was sent, what is waiting, what failed and why, and
 * sending a failed delivery again. The operator's view of the outbox (the dashboard's later).
 */
export class DeliveryService {
  constructor(private readonly database: Database) {}

  /** Newest first; `formId` narrows to one form's submissions, `status` to one state. */
  async list(filter: { formId?: string; status?: string; limit: number }, now = Date.now()): Promise<DeliveryRecord[]> {
    const status = this.checkStatus(filter.status);
    if (!Number.isInteger(filter.limit) || filter.limit < 1 || filter.limit > 1000) throw validationError(['--limit: must be a whole number from 1 to 1000']);
    let query = this.database.db.selectFrom('jobs').selectAll('jobs');
    if (filter.formId !== undefined) {
      await requireForm(this.database.db, filter.formId);
      query = query.innerJoin('submissions', 'submissions.id', 'jobs.submissionId').where('submissions.formId', '=', filter.formId);
    }
    if (status) query = query.where('jobs.status', '=', status);
    const jobs = await query.orderBy('jobs.createdAt', 'desc').orderBy('jobs.id', 'desc').limit(filter.limit).execute();
    if (jobs.length === 0) return [];
    const attempts = await this.database.db
      .selectFrom('jobAttempts')
      .selectAll()
      .where(
        'jobId',
        'in',
        jobs.map((j) => j.id),
      )
      .orderBy('startedAt')
      .execute();
    return jobs.map((job) => ({
      id: job.id,
      kind: job.kind,
      status: job.status,
      submissionId: job.submissionId,
      recipient: recipientOf(job.payload),
      attempts: job.attempts,
      lastError: job.lastError,
      nextTryAt: job.status === 'pending' ? iso(Math.max(job.runAt, job.leaseUntil ?? 0)) : null,
      createdAt: iso(job.createdAt),
      updatedAt: iso(job.updatedAt),
      tries: attempts
        .filter((a) => a.jobId === job.id)
        .map((a): DeliveryTry => ({ startedAt: iso(a.startedAt), finishedAt: iso(a.finishedAt), outcome: a.outcome, statusCode: a.statusCode, error: a.error }))
        .concat(tryUnderWay(job, now)),
    }));
  }

  /**
   * Sends failed deliveries again, from a fresh retry budget: one job by id, or every failed one of a
   * form. Returns the ids queued. A job that has not failed cannot be retried (it is waiting or done).
   */
  async retry(target: { jobId: string } | { formId: string }, now = Date.now()): Promise<string[]> {
    return this.database.transaction(async (trx) => {
      let ids: string[];
      if ('jobId' in target) {
        const job = await trx.selectFrom('jobs').select(['id', 'status']).where('id', '=', target.jobId).executeTakeFirst();
        if (!job) throw new ProblemError('not_found', `There is no delivery ${target.jobId}.`);
        if (job.status !== 'failed') throw new ProblemError('conflict', `Delivery ${job.id} is ${job.status}; only a failed delivery can be retried.`);
        ids = [job.id];
      } else {
        await requireForm(trx, target.formId);
        const failed = await trx
          .selectFrom('jobs')
          .innerJoin('submissions', 'submissions.id', 'jobs.submissionId')
          .select('jobs.id')
          .where('submissions.formId', '=', target.formId)
          .where('jobs.status', '=', 'failed')
          .execute();
        ids = failed.map((j) => j.id);
      }
      if (ids.length === 0) return [];
      await trx
        .updateTable('jobs')
        .set({ status: 'pending', attempts: 0, runAt: now, leaseUntil: null, tryStartedAt: null, updatedAt: now })
        .where('id', 'in', ids)
        .where('status', '=', 'failed')
        .execute();
      return ids;
    });
  }

  private checkStatus(status: string | undefined): JobStatus | undefined {
    if (status === undefined) return undefined;
    if (!(JOB_STATUSES as readonly string[]).includes(status)) throw validationError([`--status: "${status}" is not one of ${JOB_STATUSES.join(', ')}`]);
    return status as JobStatus;
  }

  /**
   * One submission's deliveries (a notification per recipient, the autoresponder, the webhook,
   * Slack), oldest first, each with its tries. The caller has checked that the account may see the
   * submission. Two queries, by the jobs' submission index and the attempts' job index.
   */
  async forSubmission(submissionId: string, now = Date.now()): Promise<DeliveryRecord[]> {
    const jobs = await this.database.db.selectFrom('jobs').selectAll().where('submissionId', '=', submissionId).orderBy('createdAt').orderBy('id').execute();
    if (jobs.length === 0) return [];
    const attempts = await this.database.db
      .selectFrom('jobAttempts')
      .selectAll()
      .where(
        'jobId',
        'in',
        jobs.map((j) => j.id),
      )
      .orderBy('startedAt')
      .execute();
    return jobs.map((job) => ({
      id: job.id,
      kind: job.kind,
      status: job.status,
      submissionId: job.submissionId,
      recipient: recipientOf(job.payload),
      attempts: job.attempts,
      lastError: job.lastError,
      nextTryAt: job.status === 'pending' ? iso(Math.max(job.runAt, job.leaseUntil ?? 0)) : null,
      createdAt: iso(job.createdAt),
      updatedAt: iso(job.updatedAt),
      tries: attempts
        .filter((a) => a.jobId === job.id)
        .map((a): DeliveryTry => ({ startedAt: iso(a.startedAt), finishedAt: iso(a.finishedAt), outcome: a.outcome, statusCode: a.statusCode, error: a.error }))
        .concat(tryUnderWay(job, now)),
    }));
  }
}

/** The try a worker has started and not recorded yet, if any: under way while its lease holds, cut off after. */
function tryUnderWay(job: JobRow, now: number): DeliveryTry[] {
  if (job.status !== 'pending' || job.tryStartedAt === null) return [];
  const lapsed = job.leaseUntil === null || job.leaseUntil < now;
  return [
    lapsed
      ? {
          startedAt: iso(job.tryStartedAt),
          finishedAt: iso(job.leaseUntil ?? job.tryStartedAt),
          outcome: 'interrupted',
          statusCode: null,
          error: CUT_OFF_ERROR,
        }
      : { startedAt: iso(job.tryStartedAt), finishedAt: null, outcome: 'in_progress', statusCode: null, error: null },
  ];
}

async function requireForm(db: Kysely<DB>, formId: string): Promise<void> {
  const form = await db.selectFrom('forms').select('id').where('id', '=', formId).executeTakeFirst();
  if (!form) throw new ProblemError('not_found', `There is no form ${formId}.`);
}

/** The `to` of an email job's payload: one address, or several joined (an email job queued before one per recipient). */
function recipientOf(payload: unknown): string | null {
  const to = fromJson<{ to?: unknown } | null>(payload)?.to;
  if (typeof to === 'string') return to;
  if (Array.isArray(to) && to.every((address) => typeof address === 'string')) return to.join(', ');
  return null;
}
