import DataLoader from 'dataloader';
import { fromJson } from '../../db/database.js';
import { type NotificationExtras, sharedTemplateWorkers } from '../../mail/template-workers.js';
import type { MailReceipt } from '../../mail/transport.js';
import { DeliveryError } from '../../domain/delivery-error.js';

/** A claimed job as a channel sees it: the payload already parsed. */
export interface Job<P = unknown> {
  id: string;
  kind: string;
  payload: P;
  /** 1 on the first try. */
  attempt: number;
  submissionId: string | null;
  /** Stable across retries and shared by a submission's jobs: what a receiver deduplicates on. */
  idempotencyKey: string;
}

/** What a try that went through got back: the receiver's answer, or the file an email was written to. */
export interface DeliveryReceipt {
  statusCode?: number | null;
  response?: string;
  /** No SMTP server is configured: the email is in this `.eml` file, not in anyone's mailbox. */
  writtenTo?: string;
  /** Where the try went when the channel read it at send time (a webhook's current URL). */
  target?: string;
}

/** Delivers one kind of job (email, webhook, Slack…). Resolving means delivered. */
export interface Channel {
  /** Throws DeliveryError to say whether trying again can help; any other error is transient. */
  // biome-ignore lint/suspicious/noConfusingVoidType: a channel with nothing to tell (webhook, Slack) returns nothing
  send(job: Job): Promise<DeliveryReceipt | void>;
}

/** A mailer's receipt as the worker records it. */
export function mailReceipt(receipt: MailReceipt): DeliveryReceipt {
  return 'written' in receipt ? { writtenTo: receipt.written } : { statusCode: receipt.statusCode, response: receipt.sent };
}

/** The submission a job delivers; a job without one cannot be delivered. */
export function submissionIdOf(job: Job): string {
  if (!job.submissionId) throw new DeliveryError('the job names no submission', { permanent: true });
  return job.submissionId;
}

/**
 * Looks up what each job needs by its submission's id, for all the jobs that start together in one
 * query: the worker starts a claimed batch in one tick, and a query per job was a round trip each
 * on PostgreSQL. A submission not found answers undefined.
 */
export function lookupBySubmission<Row extends { id: string }>(
  query: (submissionIds: readonly string[]) => Promise<Row[]>,
): DataLoader<string, Row | undefined> {
  return new DataLoader(
    async (submissionIds) => {
      const rows = new Map((await query(submissionIds)).map((row) => [row.id, row]));
      return submissionIds.map((id) => rows.get(id));
    },
    // nothing kept between batches: a later try reads the form as it is then
    { cache: false },
  );
}

/** A submission deleted while its delivery waited: nothing left to send. */
export function submissionGone(): DeliveryError {
  return new DeliveryError('the submission was deleted before it was delivered', { permanent: true });
}

/** A stored submission's `_email.*` and `_replyto` controls (none when it sent none). */
export function storedEmailControls(stored: unknown): Record<string, string> {
  return stored == null ? {} : fromJson<Record<string, string>>(stored);
}

/**
 * Renders a form's stored template for one delivery, on the template workers. A template that no
 * longer compiles, or whose output outgrows 1 MiB on this submission, fails the job for good: trying
 * again renders the same. One that ran out of time is tried again later, when the machine may be less busy.
 */
export async function renderStoredTemplate(
  kind: string,
  code: string,
  data: Record<string, unknown>,
  extras: NotificationExtras = {},
): Promise<{ html: string; text: string }> {
  const outcome = await sharedTemplateWorkers().render(code, data, extras);
  if (outcome.ok) return { html: outcome.html, text: outcome.text };
  if (outcome.problem === 'invalid') throw new DeliveryError(`the ${kind} template no longer compiles: ${outcome.errors[0]}`, { permanent: true });
  throw new DeliveryError(`the ${kind} template could not be rendered: ${outcome.message}`, { permanent: outcome.problem === 'too_large' });
}

/**
 * The notification template rendered for one submission, or null (the default layout) when it cannot
 * be: the owner still gets the submission, laid out with every field, rather than no email.
 */
export async function renderedOrDefaultLayout(
  code: string,
  data: Record<string, unknown>,
  extras: NotificationExtras = {},
): Promise<{ html: string; text: string } | null> {
  return renderStoredTemplate('notification', code, data, extras).catch(() => null);
}
