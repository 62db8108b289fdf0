import type { Config } from '../config/config.js';
import { DeliveryError } from '../domain/delivery-error.js';
import { accountEmail } from '../mail/account-mail.js';
import { createMailer, outboxDir, TEST_TIMEOUT_MS } from '../mail/transport.js';

/** How this installation's mail leaves, as the admin page shows it: never the SMTP password. */
export type MailSetup =
  | { via: 'smtp'; from: string; server: string; tls: 'from the start' | 'when the server offers it'; user: string | null }
  | { via: 'files'; from: string; folder: string };

/** What a test email came to: the server's answer, the file it was written to, or why it failed. */
export type TestEmailOutcome =
  | { sent: string; to: string }
  | { written: string; to: string }
  | { failed: string; statusCode: number | null; code: string | null; to: string };

type MailConfig = Pick<Config, 'smtpUrl' | 'mailFrom' | 'dataDir' | 'database' | 'publicUrl'>;

/**
 * The admin page's mail check: how mail is set up, and a test email sent straight through the
 * transport (not the queue), so the admin sees the server's own answer at once.
 */
export class MailCheckService {
  constructor(private readonly config: MailConfig) {}

  /** The SMTP server (host:port, TLS, user) or the outbox folder, and the sender. */
  setup(): MailSetup {
    const { smtpUrl, mailFrom: from } = this.config;
    if (!smtpUrl) return { via: 'files', from, folder: outboxDir(this.config) };
    const url = new URL(smtpUrl);
    const secure = url.protocol === 'smtps:';
    const port = url.port || (secure ? '465' : '587');
    return {
      via: 'smtp',
      from,
      server: `${url.hostname}:${port}`,
      tls: secure ? 'from the start' : 'when the server offers it',
      user: url.username ? decodeURIComponent(url.username) : null,
    };
  }

  /** Sends one test email to `to` now, on a connection of its own, and says what came of it. */
  async sendTest(to: string): Promise<TestEmailOutcome> {
    const mailer = createMailer(this.config, { timeoutMs: TEST_TIMEOUT_MS });
    try {
      // the layout and headers of every other email (mail/account-mail.ts): it tests what they will look like too
      const receipt = await mailer.send(
        accountEmail(to, {
          subject: 'Formgate test email',
          paragraphs: [
            `This is a test email from Formgate at ${this.config.publicUrl}, sent from the admin page.`,
            "If you are reading it, Formgate's mail reaches you.",
          ],
          footer: 'You get this email because you sent a test from the admin page.',
        }),
      );
      return 'written' in receipt ? { written: receipt.written, to } : { sent: receipt.sent || 'accepted, with no reply text', to };
    } catch (err) {
      const cause = (err instanceof Error ? err.cause : undefined) as { code?: unknown } | undefined;
      return {
        failed: err instanceof Error ? err.message : String(err),
        statusCode: err instanceof DeliveryError ? (err.statusCode ?? null) : null,
        code: typeof cause?.code === 'string' ? cause.code : null,
        to,
      };
    } finally {
      mailer.close();
    }
  }
}
