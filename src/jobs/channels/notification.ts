import type { Database } from '../../db/database.js';
import { fromJson } from '../../db/database.js';
import { notificationMessage } from '../../mail/notification.js';
import type { Mailer } from '../../mail/transport.js';
import { DeliveryError, lookupBySubmission, renderedOrDefaultLayout, storedEmailControls, submissionGone, submissionIdOf, type Channel, type Job } from './channel.js';

export const NOTIFICATION_KIND = 'notification';

/**
 * Emails a submission to its form's `notificationEmails`. The job names the submission; the form's
 * settings and notification template are read when it is sent, so a recipient removed meanwhile is
 * not written to and the layout is the one the form has then.
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
    const data = fromJson<Record<string, unknown>>(row.data);
    await this.mailer.send(
      notificationMessage({
        form: { id: row.formId, name: row.name, notificationEmails: recipients, emailThreading: row.emailThreading === 1 },
        submission: {
          id: row.id,
          createdAt: row.createdAt,
          data,
          emailControls: storedEmailControls(row.emailControls),
        },
        mailFrom: this.mailFrom,
        rendered: row.code == null ? null : await renderedOrDefaultLayout(row.code, data),
      }),
    );
  }
}
