import net from 'node:net';

/**
 * One HTTP/1.1 request written byte for byte: any method, any request target (`../`, `%00`, raw
 * bytes), headers repeated or malformed, a body that is not what its headers say. `fetch` and
 * `node:http` refuse to send most of what a hostile client sends, so the fuzz suites use this.
 */
export interface RawRequest {
  method: string;
  /** The request target exactly as written on the request line. */
  target: string | Buffer;
  /** Header lines in order; a name may repeat. Host and Connection: close are added unless given. */
  headers: [string, string | Buffer][];
  body?: Buffer | null;
  /** Content-Length is added for a body unless this is false (or the headers give one). */
  contentLength?: boolean;
}

export interface RawAnswer {
  status: number;
  headers: Headers;
  /** Every value of each header, lower-case names: a repeated header is visible. */
  headerLines: [string, string][];
  body: string;
}

/** The request as the bytes sent. */
export function encodeRequest(url: URL, request: RawRequest): Buffer {
  const names = new Set(request.headers.map(([name]) => name.toLowerCase()));
  const lines: (string | Buffer)[] = [request.method, ' ', request.target, ' HTTP/1.1\r\n'];
  if (!names.has('host')) lines.push(`Host: ${url.host}\r\n`);
  if (!names.has('connection')) lines.push('Connection: close\r\n');
  const body = request.body ?? null;
  if (body && request.contentLength !== false && !names.has('content-length') && !names.has('transfer-encoding'))
    lines.push(`Content-Length: ${body.length}\r\n`);
  for (const [name, value] of request.headers) lines.push(name, ': ', value, '\r\n');
  lines.push('\r\n');
  if (body) lines.push(body);
  return Buffer.concat(lines.map((part) => (typeof part === 'string' ? Buffer.from(part, 'latin1') : part)));
}

/** Decodes a chunked body; what cannot be decoded is returned as it came. */
function unchunk(raw: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (let guard = 0; guard < 100_000; guard++) {
    const end = raw.indexOf('\r\n', at);
    if (end < 0) return raw;
    const size = Number.parseInt(raw.subarray(at, end).toString('latin1'), 16);
    if (!Number.isFinite(size)) return raw;
    if (size === 0) break;
    parts.push(raw.subarray(end + 2, end + 2 + size));
    at = end + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** Parses what the server wrote before closing; null when no complete status line and head arrived. */
export function parseAnswer(raw: Buffer): RawAnswer | null {
  const headEnd = raw.indexOf('\r\n\r\n');
  if (headEnd < 0) return null;
  const [statusLine, ...lines] = raw.subarray(0, headEnd).toString('latin1').split('\r\n');
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '');
  if (!match) return null;
  // an interim answer (100 Continue) comes before the answer itself
  if (match[1]!.startsWith('1')) return parseAnswer(raw.subarray(headEnd + 4));
  const headerLines: [string, string][] = [];
  const headers = new Headers();
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headerLines.push([name, value]);
    headers.append(name, value);
  }
  let body = raw.subarray(headEnd + 4);
  if (/chunked/i.test(headers.get('transfer-encoding') ?? '')) body = unchunk(body);
  else if (headers.has('content-length')) body = body.subarray(0, Number(headers.get('content-length')));
  return { status: Number(match[1]), headers, headerLines, body: body.toString('utf8') };
}

/**
 * Sends a raw request on a connection of its own and reads until the server closes it (the request
 * asks it to). Resolves with the answer, or null when the server closed without one; rejects only
 * when no answer came within `timeoutMs`.
 */
export function sendRaw(baseUrl: string, request: RawRequest, timeoutMs = 20_000): Promise<RawAnswer | null> {
  const url = new URL(baseUrl);
  const bytes = encodeRequest(url, request);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect({ host: url.hostname, port: Number(url.port) });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms to ${request.method} ${String(request.target).slice(0, 200)}`));
    }, timeoutMs);
    const finish = () => {
      clearTimeout(timer);
      resolve(parseAnswer(Buffer.concat(chunks)));
    };
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', finish);
    // the server may answer (413, 431) and close while a large request is still being written
    socket.on('error', () => undefined);
    // NOTE: written, not ended: Node's server takes a client's half-close as giving up, and drops the request in flight.
    socket.on('connect', () => socket.write(bytes));
  });
}
