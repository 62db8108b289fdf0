import { emailJobMessageId } from '../../mail/message-id.js';
import type { Mailer, MailMessage } from '../../mail/transport.js';
import { DeliveryError } from '../../domain/delivery-error.js';
import { type Channel, type DeliveryReceipt, type Job, mailReceipt } from './channel.js';

/** What an 'email' job carries: a message ready to send (the sender is always FORMGATE_MAIL_FROM). */
export interface EmailPayload extends MailMessage {
  /** The message holds a one-time link (a password reset, an invitation): its text is removed once sent. */
  oneTimeLink?: boolean;
}

const REMOVED = 'Removed once sent: it held a one-time link.';

/**
 * What an email holding a one-time link keeps once it has been sent: who it went to and its subject,
 * not the link, so the jobs table (and its backups) never hold a secret that still works.
 */
export function sentWithoutLink(payload: EmailPayload): EmailPayload {
  const { oneTimeLink: _, html: __, ...kept } = payload;
  return { ...kept, text: REMOVED };
}

/** Whether a job's payload is an email holding a one-time link. */
export function holdsOneTimeLink(kind: string, payload: unknown): payload is EmailPayload {
  return kind === EMAIL_KIND && (payload as EmailPayload | null)?.oneTimeLink === true;
}

export const EMAIL_KIND = 'email';

/** Sends 'email' jobs through the mailer, each with a Message-ID of its job; its DeliveryErrors say whether to retry. */
export class EmailChannel implements Channel {
  constructor(
    private readonly mailer: Mailer,
    /** The domain that names the message ids: FORMGATE_PUBLIC_URL's host (mail/message-id.ts). */
    private readonly idDomain: string,
  ) {}

  async send(job: Job): Promise<DeliveryReceipt> {
    const payload = job.payload as EmailPayload;
    if (!Array.isArray(payload.to) || payload.to.length === 0) throw new DeliveryError('the email has no recipient', { permanent: true });
    return mailReceipt(
      await this.mailer.send({
        to: payload.to,
        subject: payload.subject,
        text: payload.text,
        html: payload.html,
        replyTo: payload.replyTo,
        headers: payload.headers,
        fromName: payload.fromName,
        messageId: emailJobMessageId(job.id, this.idDomain),
      }),
    );
  }
}
