import { createTransport } from 'nodemailer';
import type { Config } from '../config/config.js';
import { DeliveryError } from '../domain/delivery-error.js';
import { type MailReceipt, type Mailer, outboxDir } from './transport.js';

/** How often at most the SMTP server is asked whether it answers (a connection and EHLO, no message). */
export const SMTP_VERIFY_INTERVAL_MS = 60_000;
/** How long that question may take before the server counts as not answering. */
export const SMTP_VERIFY_TIMEOUT_MS = 10_000;

export interface MailCheck {
  status: 'ok' | 'degraded';
  reason?: 'smtp_delivery_failed' | 'smtp_not_answering';
  /** `smtp`: sent to FORMGATE_SMTP_URL; `files`: written as .eml files to `outbox` (no SMTP configured). */
  mode: 'smtp' | 'files';
  outbox?: string;
  /** How the last email this instance tried ended (none yet since it started: absent). */
  lastDelivery?: { outcome: 'sent' | 'failed'; at: string; statusCode?: number; error?: string };
  /** Whether the server answered the last check, and when that was (absent until the first has ended). */
  answers?: boolean;
  checkedAt?: string;
}

type Verify = () => Promise<unknown>;

/**
 * What this instance knows of its mail server: the outcome of its last email, and whether the
 * server answered a connection lately. Asked by every `/healthz`, so it only reads what it keeps;
 * the connection check runs in the background, at most once a minute.
 */
export class MailHealth {
  private last: MailCheck['lastDelivery'];
  private answered: { ok: boolean; at: number } | undefined;
  private checking = false;
  private readonly verify: Verify | null;
  private readonly intervalMs: number;
  private readonly timeoutMs: number;
  private readonly now: () => number;

  constructor(
    private readonly config: Pick<Config, 'smtpUrl' | 'dataDir' | 'database'>,
    options: { verify?: Verify; intervalMs?: number; timeoutMs?: number; now?: () => number } = {},
  ) {
    this.intervalMs = options.intervalMs ?? SMTP_VERIFY_INTERVAL_MS;
    this.timeoutMs = options.timeoutMs ?? SMTP_VERIFY_TIMEOUT_MS;
    this.now = options.now ?? Date.now;
    this.verify = config.smtpUrl ? (options.verify ?? smtpVerify(config.smtpUrl, this.timeoutMs)) : null;
  }

  /** Notes that an email went out. */
  sent(): void {
    this.last = { outcome: 'sent', at: new Date(this.now()).toISOString() };
  }

  /** Notes that an email could not be sent, with the server's reply code when it gave one. */
  failed(error: unknown): void {
    const statusCode = error instanceof DeliveryError ? error.statusCode : undefined;
    const message = error instanceof Error ? error.message : String(error);
    this.last = { outcome: 'failed', at: new Date(this.now()).toISOString(), ...(statusCode ? { statusCode } : {}), error: message.slice(0, 300) };
  }

  /** The mail check as `/healthz` shows it; starts a connection check when the last is over a minute old. */
  check(): MailCheck {
    if (!this.verify) return { status: 'ok', mode: 'files', outbox: outboxDir(this.config) };
    this.refresh();
    const check: MailCheck = { status: 'ok', mode: 'smtp' };
    if (this.last) check.lastDelivery = this.last;
    if (this.answered) {
      check.answers = this.answered.ok;
      check.checkedAt = new Date(this.answered.at).toISOString();
    }
    if (this.last?.outcome === 'failed') return { ...check, status: 'degraded', reason: 'smtp_delivery_failed' };
    if (this.answered && !this.answered.ok) return { ...check, status: 'degraded', reason: 'smtp_not_answering' };
    return check;
  }

  private refresh(): void {
    if (this.checking || (this.answered && this.now() - this.answered.at < this.intervalMs)) return;
    this.checking = true;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error('no answer')), this.timeoutMs);
      timer.unref();
    });
    Promise.race([this.verify!(), timeout])
      .then(
        () => (this.answered = { ok: true, at: this.now() }),
        () => (this.answered = { ok: false, at: this.now() }),
      )
      .finally(() => {
        clearTimeout(timer);
        this.checking = false;
      });
  }
}

/** A connection of its own (not the delivery pool's), closed after each check. */
function smtpVerify(url: string, timeoutMs: number): Verify {
  return async () => {
    const transport = createTransport({ url, connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs });
    try {
      await transport.verify();
    } finally {
      transport.close();
    }
  };
}

/** `mailer`, noting each send's outcome in `health`. */
export function observedMailer(mailer: Mailer, health: MailHealth): Mailer {
  return {
    async send(message) {
      let receipt: MailReceipt;
      try {
        receipt = await mailer.send(message);
      } catch (error) {
        health.failed(error);
        throw error;
      }
      health.sent();
      return receipt;
    },
    close: () => mailer.close(),
  };
}
