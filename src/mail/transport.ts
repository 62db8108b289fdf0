import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { createTransport } from 'nodemailer';
import { ConfigError, type Config } from '../config/config.js';
import { newId } from '../ids.js';
import { DeliveryError, MAIL_SERVER_FAILED } from '../domain/delivery-error.js';
import { makePrivateDir, writePrivateFile } from '../private-files.js';
import { literalHeaderText } from './header-text.js';
import { messageIdDomain } from './message-id.js';

export interface MailMessage {
  to: string[];
  subject: string;
  text: string;
  html?: string;
  replyTo?: string;
  headers?: Record<string, string>;
  /** A display name for the sender (`_email.from`); the address is always FORMGATE_MAIL_FROM's. */
  fromName?: string | null;
  /**
   * `<id@domain>`, made from the job that sends the message (src/mail/message-id.ts), so every try
   * sends the same one. Without it nodemailer makes a random one.
   */
  messageId?: string;
}

/**
 * How a message left: handed to the SMTP server (its reply line, `250 2.0.0 Ok: queued as …`), or
 * written to an `.eml` file because no server is configured (then nobody has received it).
 */
export type MailReceipt = { sent: string; statusCode: number | null } | { written: string };

/** Sends mail from `config.mailFrom`; throws DeliveryError (permanent for a 5xx SMTP reply). */
export interface Mailer {
  send(message: MailMessage): Promise<MailReceipt>;
  close(): void;
}

type MailConfig = Pick<Config, 'smtpUrl' | 'mailFrom' | 'dataDir' | 'database' | 'publicUrl'>;

/**
 * Where mail goes when no SMTP server is configured: beside the SQLite database (the folder an
 * operator backs up and mounts), or under FORMGATE_DATA_DIR on PostgreSQL; never the working folder.
 */
export function outboxDir(config: Pick<Config, 'dataDir' | 'database'>): string {
  const { database } = config;
  if (database.dialect === 'sqlite' && database.file !== ':memory:') return path.join(path.dirname(path.resolve(database.file)), 'outbox');
  return path.join(path.resolve(config.dataDir), 'outbox');
}

/** The line `formgate serve` prints at start when mail is not really sent; null when it is. */
export function mailWarning(config: MailConfig): string | null {
  if (config.smtpUrl) return null;
  return `FORMGATE_SMTP_URL is not set: emails are not sent but written to ${outboxDir(config)}/*.eml; set FORMGATE_SMTP_URL (smtp://user:pass@host:587) to send them`;
}

/** NOTE: a person waits on a test email (the admin page): it gives up sooner than the worker's sends. */
export const TEST_TIMEOUT_MS = 10_000;

/**
 * SMTP (pooled) when FORMGATE_SMTP_URL is set; otherwise .eml files, so nothing is lost on a laptop.
 * `timeoutMs` bounds each wait on the server (connecting, its greeting, each answer).
 */
export function createMailer(config: MailConfig, options: { timeoutMs?: number } = {}): Mailer {
  const sender = { from: config.mailFrom, idDomain: messageIdDomain(config.publicUrl) };
  return config.smtpUrl ? smtpMailer(config.smtpUrl, sender, options.timeoutMs) : fileMailer(outboxDir(config), sender);
}

/** Who every message is from, and the domain of the Message-ID given to a message that brings none. */
interface Sender {
  from: string;
  idDomain: string;
}

function smtpMailer(url: string, sender: Sender, timeoutMs?: number): Mailer {
  const protocol = safeProtocol(url);
  if (protocol !== 'smtp:' && protocol !== 'smtps:')
    throw new ConfigError(`FORMGATE_SMTP_URL must start with smtp:// or smtps://, got ${protocol ? `"${protocol}//…"` : 'a value that is not a URL'}`);
  // NOTE: timeouts well below the worker's job timeout, so a stuck server fails the try, not the lease.
  // Up to 10 connections (nodemailer's default is 5), for the worker's 16 deliveries in flight: each
  // SMTP step of a message waits for the server's answer, so more connections keep more messages
  // moving. Options in the URL's query win (`?maxConnections=3` for a server that allows fewer).
  const transport = createTransport({
    url,
    pool: true,
    maxConnections: 10,
    connectionTimeout: timeoutMs ?? 30_000,
    greetingTimeout: timeoutMs ?? 30_000,
    socketTimeout: timeoutMs ?? 60_000,
  });
  transport.use('stream', (mail, done) => {
    mail.message.transform(() => new WholeMessage());
    done();
  });
  return {
    async send(message) {
      let info: { response?: unknown };
      try {
        info = await transport.sendMail(withSender(message, sender));
      } catch (err) {
        throw classifySmtpError(err);
      }
      const response = typeof info.response === 'string' ? info.response : '';
      const code = /^\d{3}/.exec(response)?.[0];
      return { sent: response, statusCode: code ? Number(code) : null };
    },
    close: () => transport.close(),
  };
}

function fileMailer(dir: string, sender: Sender): Mailer {
  const transport = createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(message) {
      const info = await transport.sendMail(withSender(message, sender));
      await makePrivateDir(dir);
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${newId()}.eml`;
      // Written aside and renamed, so whoever watches the folder never reads half a message.
      const partial = path.join(dir, `.${name}.partial`);
      await writePrivateFile(partial, info.message as Buffer);
      const file = path.join(dir, name);
      await fs.rename(partial, file);
      return { written: file };
    },
    close: () => transport.close(),
  };
}

/**
 * The message as nodemailer takes it: the configured sender, under the requested display name if
 * any. Every email Formgate sends is automatic: one that does not say otherwise (the autoresponder's
 * `auto-replied`) is `Auto-Submitted: auto-generated` (RFC 3834), so vacation responders leave it
 * alone, and one without a Message-ID gets one of the public URL's domain, not nodemailer's (made
 * from the sender's, `localhost` by default).
 */
function withSender({ fromName, ...message }: MailMessage, sender: Sender) {
  const subject = literalHeaderText(message.subject);
  const given = message.headers ?? {};
  const automatic = Object.keys(given).some((name) => name.toLowerCase() === 'auto-submitted') ? {} : { 'Auto-Submitted': 'auto-generated' };
  const headers = { ...automatic, ...given };
  const messageId = message.messageId ?? `<${randomUUID()}@${sender.idDomain}>`;
  const from = sender.from;
  if (!fromName) return { ...message, subject, headers, messageId, from };
  const address = /<([^>]+)>\s*$/.exec(from)?.[1] ?? from.trim();
  return { ...message, subject, headers, messageId, from: { name: literalHeaderText(fromName), address } };
}

/** 5xx replies are final; 4xx replies, network errors and failed logins (a fixable setting) are retried. */
function classifySmtpError(err: unknown): DeliveryError {
  const e = err as { message?: string; responseCode?: number; code?: string };
  const statusCode = typeof e.responseCode === 'number' ? e.responseCode : undefined;
  const permanent = statusCode !== undefined && statusCode >= 500 && e.code !== 'EAUTH';
  // no reply to a message (a connection, DNS, TLS or login failure): the instance's own server, whose
  // address and words a hosting instance's tenants do not read (domain/delivery-error.ts)
  const ownServer = statusCode === undefined || e.code === 'EAUTH';
  return new DeliveryError(`SMTP: ${ownServer ? `${MAIL_SERVER_FAILED}: ` : ''}${e.message ?? String(err)}`, { permanent, statusCode, cause: err });
}

function safeProtocol(url: string): string | null {
  try {
    return new URL(url).protocol;
  } catch {
    return null;
  }
}

/**
 * Passes a message on in one piece. Streamed as built, each header and encoded line of a message
 * went to the SMTP server as a socket write of its own.
 */
class WholeMessage extends Transform {
  private readonly chunks: Buffer[] = [];

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.chunks.push(chunk);
    done();
  }

  override _flush(done: TransformCallback): void {
    done(null, Buffer.concat(this.chunks));
  }
}
