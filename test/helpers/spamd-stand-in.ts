import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';

/** One SPAMC request as the stand-in received it. */
export interface SpamcRequest {
  /** The request line, e.g. `SYMBOLS SPAMC/1.5`. */
  command: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: Buffer;
}

/** What the stand-in answers: the raw bytes to send, or null to hold the connection open without answering. */
export type SpamdReply = (request: SpamcRequest) => string | Buffer | null;

export interface SpamdStandIn {
  /** For FORMGATE_SPAMD_URL. */
  url: string;
  port: number;
  requests: SpamcRequest[];
  reply: SpamdReply;
  /** Stops listening (the port is then closed) and drops held connections. */
  close(): Promise<void>;
}

/** A SPAMD/1.1 answer to SYMBOLS, as spamd writes it. */
export function spamdAnswer(verdict: { spam: boolean; score: number; threshold?: number; symbols?: string[] }): string {
  const body = (verdict.symbols ?? []).join(',');
  const spam = `Spam: ${verdict.spam ? 'True' : 'False'} ; ${verdict.score.toFixed(1)} / ${(verdict.threshold ?? 5).toFixed(1)}`;
  return `SPAMD/1.1 0 EX_OK\r\nContent-length: ${Buffer.byteLength(body)}\r\n${spam}\r\n\r\n${body}`;
}

export const HAM: SpamdReply = () => spamdAnswer({ spam: false, score: 0.3, symbols: ['HTML_MESSAGE'] });
export const SPAM: SpamdReply = () => spamdAnswer({ spam: true, score: 7.3, symbols: ['HTML_MESSAGE', 'LOTS_OF_MONEY', 'URIBL_BLOCKED'] });

/** A spamd stand-in on loopback that records each request and answers with `reply` (HAM unless changed). */
export async function startSpamdStandIn(reply: SpamdReply = HAM): Promise<SpamdStandIn> {
  const sockets = new Set<net.Socket>();
  const standIn: SpamdStandIn = { url: '', port: 0, requests: [], reply, close: async () => undefined };
  // half-open, as spamd: the client closes its side once it has sent the message
  const server = net.createServer({ allowHalfOpen: true }, (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let received = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const headerEnd = received.indexOf('\r\n\r\n');
      if (headerEnd < 0) return;
      const [command = '', ...lines] = received.subarray(0, headerEnd).toString('latin1').split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).trim().toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      const length = Number(headers['content-length'] ?? 0);
      if (received.length - headerEnd - 4 < length) return;
      const request = { command, headers, body: received.subarray(headerEnd + 4, headerEnd + 4 + length) };
      standIn.requests.push(request);
      const answer = standIn.reply(request);
      if (answer !== null) socket.end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  standIn.port = (server.address() as net.AddressInfo).port;
  standIn.url = `spamd://127.0.0.1:${standIn.port}`;
  standIn.close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return standIn;
}

/** A loopback port nothing listens on (it was free a moment ago). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export const SPAMD_BINARY = '/usr/sbin/spamd';

/** Whether Debian's spamassassin is installed, for the tests against the real spamd. */
export function realSpamdInstalled(): boolean {
  try {
    fs.accessSync(SPAMD_BINARY, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export interface RealSpamd {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts the real spamd on a loopback port: local tests only (`-L`, no DNS or network rules), no
 * user configuration, one child. Resolves once it says it listens; fails after `deadlineMs`.
 */
export async function startRealSpamd(deadlineMs = 60_000): Promise<RealSpamd> {
  const port = await closedPort();
  const args = ['--listen', `127.0.0.1:${port}`, '-L', '--nouser-config', '--syslog', 'stderr', '--min-children', '1', '--max-children', '1'];
  // spamd refuses to keep running as root; it drops to this user (a plain user needs no switch)
  if (process.getuid?.() === 0) args.push('--username', 'nobody');
  const child: ChildProcess = spawn(SPAMD_BINARY, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.pid === undefined) return; // never started
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`spamd did not start listening within ${deadlineMs} ms:\n${log}`)), deadlineMs);
      child.stderr!.on('data', (chunk: Buffer) => {
        log += chunk.toString();
        if (/server started on/.test(log)) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`spamd exited (${code ?? signal}) before listening:\n${log}`));
      });
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
  } catch (error) {
    await stop();
    throw error;
  }
  child.stderr!.resume();
  return { url: `spamd://127.0.0.1:${port}`, stop };
}
