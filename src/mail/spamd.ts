import net from 'node:net';
import type { SpamdAddress } from '../config/config.js';

/** spamd's verdict on one message: `Spam: True ; 7.3 / 5.0` and the rules that hit. */
export interface SpamdVerdict {
  spam: boolean;
  score: number;
  threshold: number;
  symbols: string[];
}

/** spamd gave no verdict: it could not be reached, was too slow, or answered something else. */
export class SpamdError extends Error {}

export interface SpamdOptions {
  /** The whole exchange, connecting included. */
  timeoutMs?: number;
  maxResponseBytes?: number;
}

export const SPAMD_TIMEOUT_MS = 10_000;
// A SYMBOLS answer is a status line, two headers and one line of rule names.
export const SPAMD_MAX_RESPONSE_BYTES = 64 * 1024;

/** The SYMBOLS request of the SPAMC/1.5 protocol: the verdict plus the names of the rules that hit. */
export function spamcRequest(message: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`SYMBOLS SPAMC/1.5\r\nContent-length: ${message.length}\r\n\r\n`, 'latin1'), message]);
}

/**
 * Scores one RFC 5322 message with spamd, one connection per question. Everything that is not a
 * verdict (refused, reset, timed out, oversized or garbled) is a SpamdError, so the caller can
 * stop before it stores anything.
 */
export function askSpamd(address: SpamdAddress, message: Buffer, options: SpamdOptions = {}): Promise<SpamdVerdict> {
  const timeoutMs = options.timeoutMs ?? SPAMD_TIMEOUT_MS;
  const maxBytes = options.maxResponseBytes ?? SPAMD_MAX_RESPONSE_BYTES;
  const where = `spamd at ${address.host.includes(':') ? `[${address.host}]` : address.host}:${address.port}`;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const socket = net.connect({ host: address.host, port: address.port });
    const settle = (outcome: () => SpamdVerdict) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      try {
        resolve(outcome());
      } catch (error) {
        reject(error instanceof SpamdError ? new SpamdError(`${where}: ${error.message}`) : error);
      }
    };
    const fail = (reason: string) =>
      settle(() => {
        throw new SpamdError(reason);
      });
    const timer = setTimeout(() => fail(`no answer within ${timeoutMs} ms`), timeoutMs);
    // NOTE: spamd reads exactly Content-length bytes; closing our side afterwards is what spamc does too.
    socket.on('connect', () => socket.end(spamcRequest(message)));
    socket.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) return fail(`answer larger than ${maxBytes} bytes`);
      chunks.push(chunk);
    });
    socket.on('end', () => settle(() => parseSpamdResponse(Buffer.concat(chunks))));
    socket.on('error', (error: NodeJS.ErrnoException) => fail(`could not be reached (${error.code ?? error.message})`));
    socket.on('close', () => fail('closed the connection without an answer'));
  });
}

const STATUS = /^SPAMD\/\d+\.\d+ (\d+) (.*)$/;
const NUMBER = '[-+]?\\d+(?:\\.\\d+)?';
const SPAM_HEADER = new RegExp(`^(True|False|Yes|No) ; (${NUMBER}) / (${NUMBER})$`, 'i');

/** Reads a SPAMD/1.x answer to CHECK or SYMBOLS; throws SpamdError for anything else. */
export function parseSpamdResponse(raw: Buffer): SpamdVerdict {
  const text = raw.toString('latin1');
  const statusEnd = text.indexOf('\r\n');
  const status = STATUS.exec(statusEnd < 0 ? text : text.slice(0, statusEnd));
  if (!status) throw new SpamdError(`not a SPAMD answer: ${JSON.stringify(text.slice(0, 80))}`);
  if (status[1] !== '0') throw new SpamdError(`refused the request: ${status[1]} ${status[2]!.slice(0, 120)}`);
  const headerEnd = text.indexOf('\r\n\r\n');
  if (headerEnd < 0) throw new SpamdError('the answer ended inside its headers');
  let verdict: Omit<SpamdVerdict, 'symbols'> | null = null;
  let contentLength: number | null = null;
  for (const line of text.slice(statusEnd + 2, headerEnd).split('\r\n')) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'spam') {
      const m = SPAM_HEADER.exec(value.replace(/\s+/g, ' '));
      if (!m) throw new SpamdError(`unreadable Spam header: ${JSON.stringify(value.slice(0, 80))}`);
      verdict = { spam: /^(true|yes)$/i.test(m[1]!), score: Number(m[2]), threshold: Number(m[3]) };
    } else if (name === 'content-length') {
      if (!/^\d+$/.test(value)) throw new SpamdError(`unreadable Content-length: ${JSON.stringify(value.slice(0, 40))}`);
      contentLength = Number(value);
    }
  }
  if (!verdict) throw new SpamdError('the answer has no Spam header');
  const body = raw.subarray(headerEnd + 4); // latin1: one character per byte
  if (contentLength !== null && body.length !== contentLength) throw new SpamdError(`the answer was cut short: ${body.length} of ${contentLength} bytes`);
  const symbols = body
    .toString('latin1')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => /^[A-Za-z0-9_.-]+$/.test(s));
  return { ...verdict, symbols };
}
