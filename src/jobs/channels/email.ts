import type { Mailer, MailMessage } from '../../mail/transport.js';
import { DeliveryError, type Channel, type Job } from './channel.js';

/** What an 'email' job carries: a message ready to send (the sender is always FORMGATE_MAIL_FROM). */
export type EmailPayload = MailMessage;

export const EMAIL_KIND = 'email';

/** Sends 'email' jobs through the mailer; its DeliveryErrors say whether to retry. */
export class EmailChannel implements Channel {
  constructor(private readonly mailer: Mailer) {}

  async send(job: Job): Promise<void> {
    const payload = job.payload as EmailPayload;
    if (!Array.isArray(payload.to) || payload.to.length === 0) throw new DeliveryError('the email has no recipient', { permanent: true });
    await this.mailer.send({
      to: payload.to,
      subject: payload.subject,
      text: payload.text,
      html: payload.html,
      replyTo: payload.replyTo,
      headers: payload.headers,
      fromName: payload.fromName,
    });
  }
}
