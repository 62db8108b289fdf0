import DataLoader from 'dataloader';
import type { Config } from '../../config/config.js';
import type { Database, Queryable } from '../../db/database.js';
import { fromJson } from '../../db/database.js';
import { notificationMessage, submissionPageUrl, templateFiles } from '../../mail/notification.js';
import { renderSubject } from '../../mail/subject-template.js';
import type { Mailer } from '../../mail/transport.js';
import { normaliseEmail } from '../../domain/email-address.js';
import { DeliveryError } from '../../domain/delivery-error.js';
import {
  lookupBySubmission,
  renderedOrDefaultLayout,
  storedEmailControls,
  submissionGone,
  submissionIdOf,
  type Channel,
  type DeliveryReceipt,
  type Job,
  mailReceipt,
} from './channel.js';
import type { DeliveryFiles } from './submission-files.js';

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
 * Who may get a workspace's notifications: the rules of services/recipient-states.ts, which the
 * recipient service offers and jobs/delivery.ts hands in (the work layer does not reach up to services).
 */
export interface RecipientRules {
  receivingAddresses(db: Queryable, workspaceId: string, emails: readonly string[]): Promise<Set<string>>;
  withheldReason(db: Queryable, workspaceId: string, address: string): Promise<string>;
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
    /** The domain that names the message ids: FORMGATE_PUBLIC_URL's host (mail/message-id.ts). */
    private readonly idDomain: string,
    /** FORMGATE_CONFIRM_RECIPIENTS: addresses outside the workspace's team get notifications only once confirmed. */
    private readonly confirmRecipients: boolean,
    private readonly rules: RecipientRules,
    /** The submissions' files, and FORMGATE_PUBLIC_URL (read when sent): every notification links to the submission's page there. */
    private readonly files: { store: DeliveryFiles; config: Pick<Config, 'publicUrl'> },
  ) {}

  /** Whether an address may get a workspace's notifications now, asked for the jobs that start together in one query per workspace. */
  private readonly receiving = new DataLoader<{ workspaceId: string; email: string }, boolean, string>(
    async (keys) => {
      const byWorkspace = new Map<string, Set<string>>();
      for (const { workspaceId, email } of keys) {
        if (!byWorkspace.has(workspaceId)) byWorkspace.set(workspaceId, new Set());
        byWorkspace.get(workspaceId)!.add(email);
      }
      const allowed = new Map<string, Set<string>>();
      for (const [workspaceId, emails] of byWorkspace)
        allowed.set(workspaceId, await this.rules.receivingAddresses(this.database.db, workspaceId, [...emails]));
      return keys.map(({ workspaceId, email }) => allowed.get(workspaceId)!.has(email));
    },
    // nothing kept between batches: a decline counts from the next notification on
    { cache: false, cacheKeyFn: ({ workspaceId, email }) => `${workspaceId}\n${email}` },
  );

  private readonly submissions = lookupBySubmission((submissionIds) =>
    this.database.db
      .selectFrom('submissions')
      .innerJoin('forms', 'forms.id', 'submissions.formId')
      .select(['submissions.id', 'submissions.data', 'submissions.emailControls', 'submissions.createdAt'])
      .leftJoin('templates', (join) => join.onRef('templates.formId', '=', 'forms.id').on('templates.kind', '=', 'notification'))
      .select(['forms.id as formId', 'forms.workspaceId', 'forms.name', 'forms.notificationEmails', 'forms.emailThreading', 'templates.code'])
      .select(['forms.notificationSubject', 'forms.notificationFromName'])
      .where('submissions.id', 'in', submissionIds)
      .execute(),
  );

  async send(job: Job): Promise<DeliveryReceipt> {
    const row = await this.submissions.load(submissionIdOf(job));
    if (!row) throw submissionGone();
    const recipients = fromJson<string[]>(row.notificationEmails);
    if (recipients.length === 0) throw new DeliveryError('the form has no notification recipients any more', { permanent: true });
    const to = (job.payload as NotificationPayload | null)?.to;
    if (to !== undefined && !recipients.some((recipient) => sameAddress(recipient, to))) {
      throw new DeliveryError(`${to} is no longer one of the form's notification recipients`, { permanent: true });
    }
    const targets = await this.confirmedAmong(row.workspaceId, to !== undefined ? [to] : recipients);
    if (targets.length === 0) {
      // NOTE: permanent, so the delivery log shows why; "Retry" sends it once the address has confirmed
      const address = to ?? recipients[0]!;
      throw new DeliveryError(await this.rules.withheldReason(this.database.db, row.workspaceId, address), {
        permanent: true,
        withheldFrom: normaliseEmail(address),
      });
    }
    const data = fromJson<Record<string, unknown>>(row.data);
    const files = await this.files.store.of(row.id, data);
    const submissionUrl = submissionPageUrl(this.files.config.publicUrl, row.id);
    const rendered = row.code == null ? null : await renderedOrDefaultLayout(row.code, data, { files: templateFiles(files, submissionUrl), submissionUrl });
    const submission = { id: row.id, createdAt: row.createdAt, data, emailControls: storedEmailControls(row.emailControls) };
    const form = {
      id: row.formId,
      name: row.name,
      emailThreading: row.emailThreading === 1,
      subject: await renderSubject(row.notificationSubject, data),
      fromName: row.notificationFromName,
    };
    // an older job of several recipients: the last message's receipt stands for all of them
    let receipt: DeliveryReceipt = {};
    for (const recipient of targets) {
      receipt = mailReceipt(
        await this.mailer.send(notificationMessage({ form, to: recipient, submission, idDomain: this.idDomain, rendered, files, submissionUrl })),
      );
    }
    return receipt;
  }

  /**
   * The addresses that may be written to now (members' and confirmed ones). A job of one recipient
   * (every job since recipients got one each) is sent or not; an older job of several skips the
   * unconfirmed ones and sends to the rest.
   */
  private async confirmedAmong(workspaceId: string, addresses: string[]): Promise<string[]> {
    if (!this.confirmRecipients) return addresses;
    const allowed = await Promise.all(addresses.map((address) => this.receiving.load({ workspaceId, email: normaliseEmail(address) })));
    return addresses.filter((_, i) => allowed[i]);
  }
}

/** Email addresses compared as their owners read them: case aside, spaces around trimmed. */
export function sameAddress(a: string, b: string): boolean {
  return normaliseEmail(a) === normaliseEmail(b);
}
