import type { Database, Queryable } from '../db/database.js';
import type { JobStatus } from '../db/schema/job.js';
import { ProblemError } from '../errors.js';
import { requireForm, requireMemberForm, STATUS_LITERALS } from './delivery-queries.js';

/** What a member asks to send again: one delivery of the form, or every failed one of it. */
export type RetryTarget = { jobId: string } | { allFailed: true };

/**
 * `retry` for a member of the form's workspace: the delivery must be one of this form's (any other
 * id, of another form or workspace, is `not_found`, and nothing changes). Returns the ids queued.
 */
export async function retryForMember(database: Database, userId: string, formId: string, target: RetryTarget, now: number): Promise<string[]> {
  return database.transaction(async (trx) => {
    await requireMemberForm(trx, userId, formId);
    if ('allFailed' in target) return requeueFailedOfForm(trx, formId, now);
    const job = await trx
      .selectFrom('jobs')
      .innerJoin('submissions', 'submissions.id', 'jobs.submissionId')
      .select(['jobs.id', 'jobs.status'])
      .where('jobs.id', '=', target.jobId)
      .where('submissions.formId', '=', formId)
      .executeTakeFirst();
    if (!job) throw new ProblemError('not_found', `There is no delivery ${target.jobId}.`);
    if (job.status !== 'failed') throw notFailed(job);
    await requeue(trx, [job.id], now);
    return [job.id];
  });
}

/**
 * Sends failed deliveries again, from a fresh retry budget: one job by id, or every failed one of a
 * form (the operator's command: no access check). Returns the ids queued.
 */
export async function retryDeliveries(database: Database, target: { jobId: string } | { formId: string }, now: number): Promise<string[]> {
  return database.transaction(async (trx) => {
    if ('formId' in target) {
      await requireForm(trx, target.formId);
      return requeueFailedOfForm(trx, target.formId, now);
    }
    const job = await trx.selectFrom('jobs').select(['id', 'status']).where('id', '=', target.jobId).executeTakeFirst();
    if (!job) throw new ProblemError('not_found', `There is no delivery ${target.jobId}.`);
    if (job.status !== 'failed') throw notFailed(job);
    await requeue(trx, [job.id], now);
    return [job.id];
  });
}

/** The refusal of a retry of a delivery that is waiting or done. */
function notFailed(job: { id: string; status: JobStatus }): ProblemError {
  return new ProblemError('conflict', `Delivery ${job.id} is ${job.status}; only a failed delivery can be retried.`);
}

/** Queues failed jobs at once with a fresh budget of tries; a job no longer failed (sent again meanwhile) is left alone. */
async function requeue(trx: Queryable, ids: string[], now: number): Promise<void> {
  await trx
    .updateTable('jobs')
    .set({ status: 'pending', attempts: 0, runAt: now, leaseUntil: null, tryStartedAt: null, updatedAt: now })
    .where('id', 'in', ids)
    .where('status', '=', 'failed')
    .execute();
}

/** Every failed job of a form's submissions queued again, in one statement (no list of ids, however many): their ids. */
async function requeueFailedOfForm(trx: Queryable, formId: string, now: number): Promise<string[]> {
  const queued = await trx
    .updateTable('jobs')
    .set({ status: 'pending', attempts: 0, runAt: now, leaseUntil: null, tryStartedAt: null, updatedAt: now })
    .where('status', '=', STATUS_LITERALS.failed)
    .where('submissionId', 'in', (eb) => eb.selectFrom('submissions').select('submissions.id').where('submissions.formId', '=', formId))
    .returning('id')
    .execute();
  return queued.map((j) => j.id);
}
