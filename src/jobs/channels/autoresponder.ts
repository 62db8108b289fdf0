import type { Database } from '../../db/database.js';
import { fromJson } from '../../db/database.js';
import { submitterAddress } from '../../domain/submitter-address.js';
import { autoresponderMessage } from '../../mail/autoresponder.js';
import { autoresponderMessageId, mailDomain } from '../../mail/message-id.js';
import type { Mailer } from '../../mail/transport.js';
import { PlanRules } from '../../domain/plans.js';
import { DeliveryError } from '../../domain/delivery-error.js';
import { withoutFileUrls } from '../../domain/file-values.js';
import {
  lookupBySubmission,
  renderStoredTemplate,
  storedEmailControls,
  submissionGone,
  submissionIdOf,
  type Channel,
  type DeliveryReceipt,
  type Job,
  mailReceipt,
} from './channel.js';

export const AUTORESPONDER_KIND = 'autoresponder';

/**
 * Answers the submitter from the form's autoresponder template, replying to the form's first
 * notification recipient. Everything is checked again when it is sent: a template deleted or
 * paused meanwhile, or a workspace no longer upgraded, sends nothing.
 */
export class AutoresponderChannel implements Channel {
  constructor(
    private readonly database: Database,
    private readonly mailer: Mailer,
    /** FORMGATE_MAIL_FROM: its domain names the message ids. */
    private readonly mailFrom: string,
    /** The installation's plan rules (team mode: every workspace has it). */
    private readonly plans: PlanRules = PlanRules.fixed('hosting'),
  ) {}

  private readonly submissions = lookupBySubmission((submissionIds) =>
    this.database.db
      .selectFrom('submissions')
      .innerJoin('forms', 'forms.id', 'submissions.formId')
      .innerJoin('workspaces', 'workspaces.id', 'forms.workspaceId')
      .leftJoin('templates', (join) => join.onRef('templates.formId', '=', 'forms.id').on('templates.kind', '=', 'autoresponder'))
      .select([
        'submissions.id',
        'submissions.data',
        'submissions.emailControls',
        'forms.name',
        'forms.notificationEmails',
        'forms.autoresponseSubject',
        'forms.autoresponseFromName',
        'workspaces.plan',
        'templates.code',
        'templates.paused',
      ])
      .where('submissions.id', 'in', submissionIds)
      .execute(),
  );

  async send(job: Job): Promise<DeliveryReceipt> {
    const row = await this.submissions.load(submissionIdOf(job));
    if (!row) throw submissionGone();
    if (!this.plans.isUpgraded(row.plan)) throw new DeliveryError('the autoresponder needs an upgraded workspace', { permanent: true });
    if (row.code == null) throw new DeliveryError('the autoresponder was turned off (its template was deleted)', { permanent: true });
    if (row.paused === 1) throw new DeliveryError('the autoresponder is paused by the content check', { permanent: true });

    const data = fromJson<Record<string, unknown>>(row.data);
    const to = submitterAddress({ data, controls: storedEmailControls(row.emailControls) });
    if (!to) throw new DeliveryError('the submission has no address to answer', { permanent: true });
    // NOTE: no link to a file in an answer to whoever typed an address into the form: the template gets no `files`, and file objects no `url`
    const body = await renderStoredTemplate('autoresponder', row.code, withoutFileUrls(data));
    const replyTo = fromJson<string[]>(row.notificationEmails)[0];
    const messageId = autoresponderMessageId(row.id, mailDomain(this.mailFrom));
    return mailReceipt(
      await this.mailer.send({
        ...autoresponderMessage({ formName: row.name, to, replyTo, body, subject: row.autoresponseSubject, fromName: row.autoresponseFromName }),
        messageId,
      }),
    );
  }
}
