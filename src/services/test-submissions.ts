import { fromJson, type Database } from '../db/database.js';
import type { JobStatus } from '../db/schema/job.js';
import type { SubmissionStatus } from '../db/schema/submission.js';
import { ProblemError } from '../errors.js';
import { deliveryErrorForMembers } from '../domain/delivery-error.js';
import type { InstanceUsage } from '../domain/plans.js';
import { isPublicAddress } from '../net/public-address.js';
import { SLACK_KIND } from '../jobs/channels/slack.js';
import { allowedOriginsOf, type FormService } from './forms.js';

/** A post to the submit surface, answered in the process (no network): how the dashboard reaches it. */
export type SubmitPost = (request: { path: string; headers: Record<string, string>; body: string }) => Promise<{ status: number; body: string }>;

/** What the submit surface answered: the stored submission's id, or the problem it refused the post with. */
export type TestSent = { stored: true; submissionId: string } | { stored: false; status: number; title: string; detail: string; errors: string[] };

/** Where a test submission went: its status, and one line per delivery queued for it. */
export interface TestOutcome {
  submission: { id: string; status: SubmissionStatus; createdAt: number; spamReasons: string[] };
  deliveries: TestDelivery[];
}

export interface TestDelivery {
  id: string;
  kind: string;
  /** Who or what it goes to: an address, the webhook's URL, the Slack channel; null when the payload does not say. */
  target: string | null;
  status: JobStatus;
  attempts: number;
  lastError: string | null;
  /** The `.eml` file a delivered email was written to instead (no FORMGATE_SMTP_URL): nobody received it. */
  writtenTo: string | null;
}

/**
 * "Send a test submission": one real submission through the real submit surface (so every check a
 * visitor's post meets applies), and what became of it. It counts, is delivered and can be deleted
 * like any other.
 */
export class TestSubmissionService {
  constructor(
    private readonly database: Database,
    private readonly forms: FormService,
    /** Team or hosting (InstanceSettings): what members read of a delivery's error (domain/delivery-error.ts). */
    private readonly usage: () => InstanceUsage = () => 'hosting',
  ) {}

  /** Posts the test as a `fetch` client of one of the form's allowed sites would; `not_found` for an outsider. */
  async send(userId: string, formId: string, email: string, post: SubmitPost, now = Date.now()): Promise<TestSent> {
    const form = await this.forms.formForMember(userId, formId);
    const fields: Record<string, string> = {
      name: 'Formgate test',
      email,
      message: `This is a test submission sent from the dashboard at ${new Date(now).toISOString().slice(0, 16).replace('T', ' ')} UTC.`,
    };
    // a field named like the form's own spam trap would make the test look like a bot
    if (form.customHoneypot) delete fields[form.customHoneypot];
    const headers: Record<string, string> = { accept: 'application/json', 'content-type': 'application/json' };
    // a form that lists its sites takes posts from them only: the test comes from the first one
    const origin = allowedOriginsOf(form)[0];
    if (origin) headers.origin = origin;
    const answer = await post({ path: `/${encodeURIComponent(formId)}`, headers, body: JSON.stringify(fields) });
    const body = parse(answer.body);
    if (answer.status === 200 && typeof body.id === 'string') return { stored: true, submissionId: body.id };
    return {
      stored: false,
      status: answer.status,
      title: typeof body.title === 'string' ? body.title : 'Refused',
      detail: typeof body.detail === 'string' ? body.detail : `The submit surface answered HTTP ${answer.status}.`,
      errors: Array.isArray(body.errors) ? body.errors.filter((e): e is string => typeof e === 'string') : [],
    };
  }

  /** A submission of the form and the deliveries queued for it; `not_found` for an outsider, another form's submission or one deleted since. */
  async outcome(userId: string, formId: string, submissionId: string): Promise<TestOutcome> {
    const form = await this.forms.formForMember(userId, formId);
    const submission = await this.database.db
      .selectFrom('submissions')
      .select(['id', 'status', 'createdAt', 'spamReasons'])
      .where('id', '=', submissionId)
      .where('formId', '=', formId)
      .executeTakeFirst();
    if (!submission) throw new ProblemError('not_found', `Submission ${submissionId} was not found.`);
    const jobs = await this.database.db
      .selectFrom('jobs')
      .select(['id', 'kind', 'payload', 'status', 'attempts', 'lastError'])
      .where('submissionId', '=', submissionId)
      .orderBy('createdAt')
      .orderBy('id')
      .execute();
    // an email delivered without an SMTP server only went to a file: said so, not "Delivered" (issue 39, item 6)
    const done = jobs.filter((job) => job.status === 'done').map((job) => job.id);
    const written =
      done.length === 0
        ? []
        : await this.database.db
            .selectFrom('jobAttempts')
            .select(['jobId', 'writtenTo'])
            .where('jobId', 'in', done)
            .where('outcome', '=', 'ok')
            .where('writtenTo', 'is not', null)
            .execute();
    const writtenTo = new Map(written.map((row) => [row.jobId, row.writtenTo]));
    return {
      submission: {
        id: submission.id,
        status: submission.status,
        createdAt: Number(submission.createdAt),
        spamReasons: fromJson<string[] | null>(submission.spamReasons) ?? [],
      },
      deliveries: jobs.map((job) => ({
        id: job.id,
        kind: job.kind,
        target: targetOf(job.kind, fromJson<Record<string, unknown> | null>(job.payload), form.slackChannel),
        status: job.status,
        attempts: job.attempts,
        lastError: deliveryErrorForMembers(job.lastError, this.usage(), isPublicAddress),
        writtenTo: writtenTo.get(job.id) ?? null,
      })),
    };
  }
}

function parse(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Where a delivery goes, from its payload: the email's address, the webhook's URL; Slack's channel is the form's. */
function targetOf(kind: string, payload: Record<string, unknown> | null, slackChannel: string | null): string | null {
  if (kind === SLACK_KIND) return slackChannel;
  const to = payload?.to ?? payload?.url;
  if (typeof to === 'string') return to;
  if (Array.isArray(to)) return to.filter((t) => typeof t === 'string').join(', ');
  return null;
}
