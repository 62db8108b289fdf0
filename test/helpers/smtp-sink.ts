import { simpleParser, type ParsedMail } from 'mailparser';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { WAIT_DEADLINE_MS } from './eventually.js';

/**
 * How the sink answers: accept, 451 (try later) or 550 (refused for good) to MAIL FROM, or 451 to a
 * whole message it has read (`transientAfterData`: kept in `refused`, so a test sees what the first try sent).
 */
export type SinkMode = 'accept' | 'transient' | 'permanent' | 'transientAfterData';

export interface ReceivedMail {
  /** The envelope: who the message was really sent to, and by. */
  envelopeFrom: string;
  envelopeTo: string[];
  parsed: ParsedMail;
}

export interface SmtpSink {
  /** `smtp://127.0.0.1:<port>`: what FORMGATE_SMTP_URL points at in tests. */
  url: string;
  messages: ReceivedMail[];
  /** The messages read in full and then answered 451, in `transientAfterData` mode. */
  refused: ReceivedMail[];
  mode: SinkMode;
  /** Recipients whose RCPT TO is answered 450 (mailbox busy, try later); the others are accepted. */
  busyRecipients: Set<string>;
  /** The most client connections that were open at once. */
  peakConnections: number;
  /** Resolves once `count` messages have arrived; rejects after `deadlineMs`. */
  waitFor(count: number, deadlineMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

/** A real SMTP server on loopback (no TLS, no auth required) that keeps every message it accepts, parsed. */
export async function startSmtpSink(): Promise<SmtpSink> {
  const messages: ReceivedMail[] = [];
  const refused: ReceivedMail[] = [];
  const waiters = new Set<() => void>();
  const sink: SmtpSink = { url: '', messages, refused, mode: 'accept', busyRecipients: new Set(), peakConnections: 0, waitFor, close };
  let open = 0;

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onConnect(_session, callback) {
      sink.peakConnections = Math.max(sink.peakConnections, ++open);
      callback();
    },
    onClose() {
      open--;
    },
    onMailFrom(_address, _session, callback) {
      if (sink.mode === 'accept' || sink.mode === 'transientAfterData') return callback();
      const error = Object.assign(new Error(sink.mode === 'transient' ? 'Try again later' : 'Mailbox unavailable'), {
        responseCode: sink.mode === 'transient' ? 451 : 550,
      });
      callback(error);
    },
    onRcptTo(address, _session, callback) {
      if (!sink.busyRecipients.has(address.address)) return callback();
      callback(Object.assign(new Error('Mailbox busy, try again later'), { responseCode: 450 }));
    },
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (parsed) => {
          const mail = {
            envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            envelopeTo: session.envelope.rcptTo.map((r) => r.address),
            parsed,
          };
          if (sink.mode === 'transientAfterData') {
            refused.push(mail);
            return callback(Object.assign(new Error('Try again later'), { responseCode: 451 }));
          }
          messages.push(mail);
          for (const wake of waiters) wake();
          callback();
        },
        (err: Error) => callback(err),
      );
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  // NOTE: smtp-server emits a connection reset in the middle of a message as an 'error' of the
  // server: a sender killed or cut off mid-message (as the reliability suites do on purpose) must
  // not end the test process.
  server.on('error', () => undefined);
  sink.url = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;

  function waitFor(count: number, deadlineMs = WAIT_DEADLINE_MS): Promise<ReceivedMail[]> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (messages.length < count) return;
        done();
        resolve(messages.slice(0, count));
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`the SMTP sink received ${messages.length} of ${count} messages within ${deadlineMs} ms`));
      }, deadlineMs);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });
  }

  function close(): Promise<void> {
    return new Promise((resolve) => server.close(() => resolve()));
  }

  return sink;
}
