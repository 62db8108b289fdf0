import type { Database } from '../../db/database.js';
import { fromJson } from '../../db/database.js';
import { notificationMessage } from '../../mail/notification.js';
import type { Mailer } from '../../mail/transport.js';
import {
  DeliveryError,
  lookupBySubmission,
  renderedOrDefaultLayout,
  storedEmailControls,
  submissionGone,
  submissionIdOf,
  type Channel,
  type Job,
} from './channel.js';

export const NOTIFICATION_KIND = 'notification';

/**
 * What a 'notification' job carries: the form, and the one recipient it is for (a submission gets a
 * job per recipient). Jobs queued before that carry no `to` and are sent to every current recipient,
 * each in a message of their own.
 */
export interface NotificationPayload {
  formId: string;
  to?: string;
}

/**
 * Emails a submission to one of its form's `notificationEmails`. The job names the submission and
 * the recipient; the form's settings and notification template are read when it is sent, so a
 * recipient removed meanwhile is not written to and the layout is the one the form has then.
 */
export class NotificationChannel implements Channel {
  constructor(
    private readonly database: Database,
    private readonly mailer: Mailer,
    private readonly mailFrom: string,
  ) {}

  private readonly submissions = lookupBySubmission((submissionIds) =>
    this.database.db
      .selectFrom('submissions')
      .innerJoin('forms', 'forms.id', 'submissions.formId')
      .select(['submissions.id', 'submissions.data', 'submissions.emailControls', 'submissions.createdAt'])
      .leftJoin('templates', (join) => join.onRef('templates.formId', '=', 'forms.id').on('templates.kind', '=', 'notification'))
      .select(['forms.id as formId', 'forms.name', 'forms.notificationEmails', 'forms.emailThreading', 'templates.code'])
      .where('submissions.id', 'in', submissionIds)
      .execute(),
  );

  async send(job: Job): Promise<void> {
    const row = await this.submissions.load(submissionIdOf(job));
    if (!row) throw submissionGone();
    const recipients = fromJson<string[]>(row.notificationEmails);
    if (recipients.length === 0) throw new DeliveryError('the form has no notification recipients any more', { permanent: true });
    const to = (job.payload as NotificationPayload | null)?.to;
    if (to !== undefined && !recipients.some((recipient) => sameAddress(recipient, to))) {
      throw new DeliveryError(`${to} is no longer one of the form's notification recipients`, { permanent: true });
    }
    const data = fromJson<Record<string, unknown>>(row.data);
    const rendered = row.code == null ? null : await renderedOrDefaultLayout(row.code, data);
    const submission = { id: row.id, createdAt: row.createdAt, data, emailControls: storedEmailControls(row.emailControls) };
    const form = { id: row.formId, name: row.name, emailThreading: row.emailThreading === 1 };
    for (const recipient of to !== undefined ? [to] : recipients) {
      await this.mailer.send(notificationMessage({ form, to: recipient, submission, mailFrom: this.mailFrom, rendered }));
    }
  }
}

/** Email addresses compared as their owners read them: case aside, spaces around trimmed. */
export function sameAddress(a: string, b: string): boolean {
  return addressKey(a) === addressKey(b);
}

/** What two spellings of one address have in common (see `sameAddress`). */
export function addressKey(address: string): string {
  return address.trim().toLowerCase();
}
