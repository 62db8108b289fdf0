import { sql } from 'kysely';
import type { Database, Queryable } from '../db/database.js';
import { WEBHOOK_KIND } from '../jobs/channels/webhook.js';
import { destinationOf } from '../jobs/lanes.js';
import type { JobStatus } from '../db/schema/job.js';
import type { SubmissionStatus } from '../db/schema/submission.js';
import { LoopSlice } from '../domain/loop-slice.js';
import { ProblemError } from '../errors.js';
import { requireForm, requireMemberForm, STATUS_LITERALS } from './delivery-queries.js';

/** What a member asks to send again: one delivery of the form, or every failed one of it. */
export type RetryTarget = { jobId: string } | { allFailed: true };

/**
 * `retry` for a member of the form's workspace: the delivery must be one of this form's (any other
 * id, of another form or workspace, is `not_found`, and nothing changes). Returns the ids queued.
 */
export async function retryForMember(database: Database, userId: string, formId: string, target: RetryTarget, now: number): Promise<string[]> {
  if ('allFailed' in target) {
    await requireMemberForm(database.db, userId, formId);
    return requeueFailedOfForm(database, formId, now);
  }
  return database.transaction(async (trx) => {
    await requireMemberForm(trx, userId, formId);
    const job = await trx
      .selectFrom('jobs')
      .innerJoin('submissions', 'submissions.id', 'jobs.submissionId')
      .select(['jobs.id', 'jobs.status'])
      .where('jobs.id', '=', target.jobId)
      .where('submissions.formId', '=', formId)
      .executeTakeFirst();
    if (!job) throw new ProblemError('not_found', `There is no delivery ${target.jobId}.`);
    if (job.status !== 'failed') throw notFailed(job);
    await requeue(trx, [job.id], now, await webhookDestination(trx, formId));
    return [job.id];
  });
}

/**
 * Sends failed deliveries again, from a fresh retry budget: one job by id, or every failed one of a
 * form (the operator's command: no access check). Returns the ids queued.
 */
export async function retryDeliveries(database: Database, target: { jobId: string } | { formId: string }, now: number): Promise<string[]> {
  if ('formId' in target) {
    await requireForm(database.db, target.formId);
    return requeueFailedOfForm(database, target.formId, now);
  }
  return database.transaction(async (trx) => {
    const job = await trx
      .selectFrom('jobs')
      .leftJoin('submissions', 'submissions.id', 'jobs.submissionId')
      .select(['jobs.id', 'jobs.status', 'submissions.formId'])
      .where('jobs.id', '=', target.jobId)
      .executeTakeFirst();
    if (!job) throw new ProblemError('not_found', `There is no delivery ${target.jobId}.`);
    if (job.status !== 'failed') throw notFailed(job);
    await requeue(trx, [job.id], now, job.formId ? await webhookDestination(trx, job.formId) : null);
    return [job.id];
  });
}

/** The refusal of a retry of a delivery that is waiting or done. */
function notFailed(job: { id: string; status: JobStatus }): ProblemError {
  return new ProblemError('conflict', `Delivery ${job.id} is ${job.status}; only a failed delivery can be retried.`);
}

/** Queues failed jobs at once with a fresh budget of tries; a job no longer failed (sent again meanwhile) is left alone. */
async function requeue(trx: Queryable, ids: string[], now: number, webhookOrigin: string | null): Promise<void> {
  await trx.updateTable('jobs').set(requeuedColumns(now, webhookOrigin)).where('id', 'in', ids).where('status', '=', 'failed').execute();
}

/**
 * What a retry sets: due now, a fresh budget, no wait a receiver asked of an earlier try. A webhook's
 * destination becomes its form's current origin, since its tries go to the form's URL as it is now
 * (jobs/channels/webhook.ts): the per-receiver slots and revivals follow the address really called.
 */
function requeuedColumns(now: number, webhookOrigin: string | null) {
  const destination =
    webhookOrigin === null ? sql<string | null>`destination` : sql<string | null>`CASE WHEN kind = ${WEBHOOK_KIND} THEN ${webhookOrigin} ELSE destination END`;
  return { status: 'pending' as const, attempts: 0, runAt: now, leaseUntil: null, tryStartedAt: null, notBefore: null, updatedAt: now, destination };
}

/** The destination of the form's webhook as it is now; null when it has none (a webhook job then fails at once, its destination unused). */
async function webhookDestination(db: Queryable, formId: string): Promise<string | null> {
  const form = await db.selectFrom('forms').select('webhookUrl').where('id', '=', formId).executeTakeFirst();
  return form?.webhookUrl ? destinationOf(WEBHOOK_KIND, { url: form.webhookUrl }) : null;
}

/** Where a page of a form's submissions ended, in its listing index's order. */
type PageEnd = { status: SubmissionStatus; createdAt: number; id: string };

/** A form's submissions looked at per statement: each short, the event loop given back between them (issue 38). */
const REQUEUE_PAGE = 500;

/**
 * Every failed job of a form's submissions queued again: their ids. The form's submissions are walked
 * REQUEUE_PAGE at a time through its listing index (form, status, time, id), and the failed jobs of
 * each page queued in one statement: one statement over a form's 100,000 failed deliveries held a
 * SQLite server for as long as it ran, and asking for "the next failed ones" each time read the
 * form's submissions again from the start. A job queued again meanwhile by someone else (no longer
 * failed) is left alone, as before.
 */
async function requeueFailedOfForm(database: Database, formId: string, now: number): Promise<string[]> {
  const queued: string[] = [];
  const slice = new LoopSlice();
  const webhookOrigin = await webhookDestination(database.db, formId);
  let after: PageEnd | null = null;
  for (;;) {
    await slice.yieldIfDue();
    const from: PageEnd | null = after;
    const page: PageEnd[] = await database.db
      .selectFrom('submissions')
      .select(['status', 'createdAt', 'id'])
      .where('formId', '=', formId)
      .$if(from !== null, (query) => query.where((eb) => eb(eb.refTuple('status', 'createdAt', 'id'), '>', eb.tuple(from!.status, from!.createdAt, from!.id))))
      .orderBy('status')
      .orderBy('createdAt')
      .orderBy('id')
      .limit(REQUEUE_PAGE)
      .execute();
    if (page.length === 0) return queued;
    const requeued = await database.db
      .updateTable('jobs')
      .set(requeuedColumns(now, webhookOrigin))
      .where(
        'submissionId',
        'in',
        page.map((row) => row.id),
      )
      .where('status', '=', STATUS_LITERALS.failed)
      .returning('id')
      .execute();
    for (const job of requeued) queued.push(job.id);
    if (page.length < REQUEUE_PAGE) return queued;
    const last: PageEnd = page[page.length - 1]!;
    after = { status: last.status, createdAt: Number(last.createdAt), id: last.id };
  }
}
