import { fromJson, type Database } from '../db/database.js';
import type { AttemptOutcome, JobRow, JobStatus } from '../db/schema/job.js';
import { validationError } from '../errors.js';
import { deliveryErrorForMembers } from '../domain/delivery-error.js';
import type { InstanceUsage } from '../domain/plans.js';
import { isPublicAddress } from '../net/public-address.js';
import { submitterAddress } from '../domain/submitter-address.js';
import { fieldsOf, firstLineOf, whoOf } from '../domain/submission-summary.js';
import { AUTORESPONDER_KIND } from '../jobs/channels/autoresponder.js';
import { storedEmailControls } from '../jobs/channels/channel.js';
import { WEBHOOK_KIND } from '../jobs/channels/webhook.js';
import { HOOK_KIND } from '../jobs/hook-jobs.js';
import { DESTINATION_JOB_KINDS } from '../jobs/destination-jobs.js';
import { CUT_OFF_ERROR } from '../jobs/claim-query.js';
import { memberForm, requireForm, requireMemberForm, STATUS_LITERALS } from './delivery-queries.js';
import { type RetryTarget, retryDeliveries, retryForMember } from './delivery-retries.js';
import type { Keyset } from './pagination.js';

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
  /** What the receiver answered a try that went through (the SMTP server's `250 …` line), when known. */
  response: string | null;
  /** The `.eml` file an email was written to instead of sent (no FORMGATE_SMTP_URL): not delivered to anyone. */
  writtenTo: string | null;
  /** Where the try went, for a webhook: the form's URL when the try was made (a retry uses the current one); null for other kinds and older tries. */
  target: string | null;
}

/**
 * A page of a form's delivery log. `next` is the keyset after its last delivery: the time of that
 * delivery's submission and the delivery's own id (see `listForMember`); null on the last page.
 */
export interface DeliveryPage {
  deliveries: FormDelivery[];
  next: Keyset | null;
}

/**
 * A delivery of the form's log, with where it goes: an email's address (the autoresponder's too, read
 * from its submission); a webhook's URL: where its last try went, or for one still waiting, the form's
 * URL now, where its next try goes; null for Slack.
 */
export type FormDelivery = DeliveryRecord & {
  to: string | null;
  submittedAt: string;
  /** Who sent its submission (a name, else an address; null: nobody named) and what it says first, as the inbox names it. */
  sender: string | null;
  firstLine: string;
};

/** A submission of a page of the log: read once however many deliveries it has. */
type PageSubmission = { data: Record<string, unknown>; emailControls: unknown };

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The delivery log and its one repair: what was sent, what is waiting, what failed and why, and
 * sending a failed delivery again: the operator's view of the outbox (the CLI, no access check) and a
 * form's members' view of their form's deliveries (the dashboard).
 */
export class DeliveryService {
  /** `usage`: team or hosting (InstanceSettings), which decides what members read of errors. */
  constructor(
    private readonly database: Database,
    private readonly usage: () => InstanceUsage = () => 'hosting',
  ) {}

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
    return this.withTries(jobs, now);
  }

  /**
   * A form's delivery log as a member of its workspace sees it (`not_found` for anyone else, whether
   * or not the form exists): newest submission first, each submission's deliveries newest first,
   * optionally one `status` only, `limit` a page.
   *
   * NOTE: paged by (the submission's createdAt, the job's id), not by the job's own time: the
   * submissions index (form_id, status, created_at, id) walks a form's submissions newest first and
   * jobs_submission_id finds each one's deliveries, so a page reads about `limit` rows of each
   * table however many the form has. No index orders the jobs of one form by their own time (the
   * jobs table does not know the form). A job is written with its submission, so the two orders
   * differ only for the deliveries of a held submission released by an upgrade, or of one moved
   * out of spam, which are listed at their submission's time. Only accepted submissions have jobs.
   */
  async listForMember(
    userId: string,
    formId: string,
    page: { status?: JobStatus; limit: number; after: Keyset | null },
    now = Date.now(),
  ): Promise<DeliveryPage> {
    const db = this.database.db;
    let query = db
      .selectFrom('submissions')
      .innerJoin('jobs', 'jobs.submissionId', 'submissions.id')
      .innerJoin('forms', 'forms.id', 'submissions.formId')
      .selectAll('jobs')
      .select(['submissions.createdAt as submittedAt', 'forms.webhookUrl as currentWebhookUrl'])
      .where('submissions.formId', '=', formId)
      .where('submissions.status', '=', 'accepted')
      // the member check in the same query: a page that has rows costs one round trip
      .where(({ exists }) => exists(memberForm(db, userId, formId)));
    // a literal: the partial index of failed jobs (migration 0015) serves only a query that names its status
    if (page.status) query = query.where('jobs.status', '=', STATUS_LITERALS[page.status]);
    const after = page.after;
    if (after) {
      // NOTE: the `<=` alone bounds the index range; the OR then skips what the previous page showed of its last second.
      query = query
        .where('submissions.createdAt', '<=', after.createdAt)
        .where((eb) => eb.or([eb('submissions.createdAt', '<', after.createdAt), eb('jobs.id', '<', after.id)]));
    }
    const rows = await query
      .orderBy('submissions.createdAt', 'desc')
      .orderBy('jobs.id', 'desc')
      .limit(page.limit + 1)
      .execute();
    // no rows: an empty log, or not the account's form; the check tells them apart
    if (rows.length === 0) await requireMemberForm(db, userId, formId);
    const hasMore = rows.length > page.limit;
    if (hasMore) rows.pop();
    const last = rows.at(-1);
    const [records, submissions] = await Promise.all([this.withTries(rows, now), this.submissionsOf(rows)]);
    return {
      deliveries: this.forMembers(records).map((record, i) => {
        const row = rows[i]!;
        const submission = row.submissionId === null ? undefined : submissions.get(row.submissionId);
        const data = submission?.data ?? {};
        return {
          ...record,
          to: destinationOf(row, record, submission),
          submittedAt: iso(row.submittedAt),
          sender: whoOf(data),
          firstLine: firstLineOf(data),
        };
      }),
      next: hasMore && last ? { createdAt: last.submittedAt, id: last.id } : null,
    };
  }

  /** The submissions of a page's deliveries, each read once (a submission has several deliveries). */
  private async submissionsOf(rows: JobRow[]): Promise<Map<string, PageSubmission>> {
    const ids = [...new Set(rows.map((row) => row.submissionId).filter((id): id is string => id !== null))];
    if (ids.length === 0) return new Map();
    const found = await this.database.db.selectFrom('submissions').select(['id', 'data', 'emailControls']).where('id', 'in', ids).execute();
    return new Map(found.map((row) => [row.id, { data: fieldsOf(fromJson(row.data)), emailControls: row.emailControls }]));
  }

  /**
   * `retry` for a member of the form's workspace: the delivery must be one of this form's (any other
   * id, of another form or workspace, is `not_found`, and nothing changes). Returns the ids queued.
   */
  async retryForMember(userId: string, formId: string, target: RetryTarget, now = Date.now()): Promise<string[]> {
    return retryForMember(this.database, userId, formId, target, now);
  }

  /**
   * Sends failed deliveries again, from a fresh retry budget: one job by id, or every failed one of a
   * form. Returns the ids queued. A job that has not failed cannot be retried (it is waiting or done).
   */
  async retry(target: { jobId: string } | { formId: string }, now = Date.now()): Promise<string[]> {
    return retryDeliveries(this.database, target, now);
  }

  /** Jobs with every try made at each (and the try under way), in the order given. */
  private async withTries(jobs: JobRow[], now: number): Promise<DeliveryRecord[]> {
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
        .map(
          (a): DeliveryTry => ({
            startedAt: iso(a.startedAt),
            finishedAt: iso(a.finishedAt),
            outcome: a.outcome,
            statusCode: a.statusCode,
            error: a.error,
            response: a.response,
            writtenTo: a.writtenTo,
            target: a.target,
          }),
        )
        .concat(tryUnderWay(job, now)),
    }));
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
    return this.forMembers(await this.withTries(jobs, now));
  }

  /** The records with their errors as the form's members may read them (domain/delivery-error.ts): the CLI's `list` keeps every detail. */
  private forMembers(records: DeliveryRecord[]): DeliveryRecord[] {
    const usage = this.usage();
    if (usage === 'team') return records;
    const shown = (error: string | null) => deliveryErrorForMembers(error, usage, isPublicAddress);
    return records.map((record) => ({ ...record, lastError: shown(record.lastError), tries: record.tries.map((t) => ({ ...t, error: shown(t.error) })) }));
  }
}

/** The file a delivered email was written to instead of sent (no SMTP server configured), or null. */
export function writtenToFile(delivery: DeliveryRecord): string | null {
  if (delivery.status !== 'done') return null;
  return [...delivery.tries].reverse().find((t) => t.outcome === 'ok')?.writtenTo ?? null;
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
          response: null,
          writtenTo: null,
          target: null,
        }
      : {
          startedAt: iso(job.tryStartedAt),
          finishedAt: null,
          outcome: 'in_progress',
          statusCode: null,
          error: null,
          response: null,
          writtenTo: null,
          target: null,
        },
  ];
}

/** Where a delivery of a form's log goes, for people: an address, a URL, or nothing to name (Slack). */
function destinationOf(row: JobRow & { currentWebhookUrl: string | null }, record: DeliveryRecord, submission: PageSubmission | undefined): string | null {
  if (row.kind === WEBHOOK_KIND) {
    // a retry goes to the form's URL as it is then (jobs/channels/webhook.ts): the log says where the last try went, or where the next goes
    if (record.status === 'pending' && row.currentWebhookUrl !== null) return row.currentWebhookUrl;
    const tried = [...record.tries].reverse().find((t) => t.target !== null)?.target;
    if (tried) return tried;
    const url = fromJson<{ url?: unknown } | null>(row.payload)?.url;
    return typeof url === 'string' ? url : null;
  }
  if (row.kind === HOOK_KIND) {
    const url = fromJson<{ url?: unknown } | null>(row.payload)?.url;
    return typeof url === 'string' ? url : null;
  }
  // a destination's service: the address its last try called (the job carries none)
  if (DESTINATION_JOB_KINDS.includes(row.kind)) return [...record.tries].reverse().find((t) => t.target !== null)?.target ?? null;
  // the autoresponder's address is the submitter's, in the submission
  if (row.kind === AUTORESPONDER_KIND && submission) {
    return submitterAddress({ data: submission.data, controls: storedEmailControls(submission.emailControls) });
  }
  return record.recipient;
}

/** The `to` of an email job's payload: one address, or several joined (an email job queued before one per recipient). */
function recipientOf(payload: unknown): string | null {
  const to = fromJson<{ to?: unknown } | null>(payload)?.to;
  if (typeof to === 'string') return to;
  if (Array.isArray(to) && to.every((address) => typeof address === 'string')) return to.join(', ');
  return null;
}
