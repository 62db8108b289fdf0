import type { Database } from '../../db/database.js';
import { fromJson } from '../../db/database.js';
import { submitterAddress } from '../../domain/submitter-address.js';
import { autoresponderMessage, siteOf } from '../../mail/autoresponder.js';
import { autoresponderMessageId } from '../../mail/message-id.js';
import { renderSubject } from '../../mail/subject-template.js';
import type { Mailer } from '../../mail/transport.js';
import { PlanRules } from '../../domain/plans.js';
import { DeliveryError } from '../../domain/delivery-error.js';
import { withoutFileUrls } from '../../domain/file-values.js';
import { isVouchedFor } from '../../domain/workspace-trust.js';
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

/** Why a workspace made through open sign-up sends no autoresponder: what its delivery log shows. */
export const NOT_VOUCHED =
  'not sent: while sign-up is open, the autoresponder of a workspace the instance admin did not make works once the admin gives it an upgraded plan (the admin page)';

/**
 * Answers the submitter from the form's autoresponder template, replying to the form's first
 * notification recipient. Everything is checked again when it is sent: a template deleted or
 * paused meanwhile, or a workspace no longer upgraded, sends nothing.
 */
export class AutoresponderChannel implements Channel {
  constructor(
    private readonly database: Database,
    private readonly mailer: Mailer,
    /** The domain that names the message ids: FORMGATE_PUBLIC_URL's host (mail/message-id.ts). */
    private readonly idDomain: string,
    /** The installation's plan rules (team mode: every workspace has it). */
    private readonly plans: PlanRules = PlanRules.fixed('hosting'),
    /** FORMGATE_SIGNUP=open: a stranger's workspace answers nobody until the admin vouches for it. */
    private readonly openSignup = false,
  ) {}

  private readonly submissions = lookupBySubmission((submissionIds) =>
    this.database.db
      .selectFrom('submissions')
      .innerJoin('forms', 'forms.id', 'submissions.formId')
      .innerJoin('workspaces', 'workspaces.id', 'forms.workspaceId')
      .leftJoin('users', 'users.id', 'workspaces.ownerId')
      .leftJoin('templates', (join) => join.onRef('templates.formId', '=', 'forms.id').on('templates.kind', '=', 'autoresponder'))
      .select([
        'submissions.id',
        'submissions.data',
        'submissions.emailControls',
        'forms.notificationEmails',
        'forms.allowedOrigins',
        'forms.autoresponseSubject',
        'forms.autoresponseFromName',
        'workspaces.plan',
        'users.isAdmin as ownerIsAdmin',
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
    // NOTE: the autoresponder writes to whatever address the visitor typed: with open sign-up and team mode it would mail a stranger's words to anyone (issue 38, item 9)
    if (!isVouchedFor(this.openSignup, row)) throw new DeliveryError(NOT_VOUCHED, { permanent: true });
    if (row.code == null) throw new DeliveryError('the autoresponder was turned off (its template was deleted)', { permanent: true });
    if (row.paused === 1) throw new DeliveryError('the autoresponder is paused by the content check', { permanent: true });

    const data = fromJson<Record<string, unknown>>(row.data);
    const to = submitterAddress({ data, controls: storedEmailControls(row.emailControls) });
    if (!to) throw new DeliveryError('the submission has no address to answer', { permanent: true });
    // NOTE: no link to a file in an answer to whoever typed an address into the form: the template gets no `files`, and file objects no `url`
    const fields = withoutFileUrls(data);
    const body = await renderStoredTemplate('autoresponder', row.code, fields);
    const subject = await renderSubject(row.autoresponseSubject, fields);
    const replyTo = fromJson<string[]>(row.notificationEmails)[0];
    const site = siteOf(fromJson<string[] | null>(row.allowedOrigins) ?? []);
    const messageId = autoresponderMessageId(row.id, this.idDomain);
    return mailReceipt(
      await this.mailer.send({ ...autoresponderMessage({ to, replyTo, body, subject, fromName: row.autoresponseFromName, site }), messageId }),
    );
  }
}
