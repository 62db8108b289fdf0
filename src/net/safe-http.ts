import { promises as dns } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { LRUCache } from 'lru-cache';
import { DeliveryError, LOCALHOST_NAME_PHRASE } from '../domain/delivery-error.js';
import { connectProblem, isLocalhostName, NO_ALLOWED_TARGETS, type WebhookAllowList } from './public-address.js';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every address it has, like `dns.promises.lookup(name, { all: true })`. */
export type HostLookup = (hostname: string) => Promise<ResolvedAddress[]>;

export interface SafePostOptions {
  /** Skip the address check (FORMGATE_ALLOW_PRIVATE_WEBHOOKS, tests only). */
  allowPrivate: boolean;
  /** Private networks and host names the owner allowed (admin page, FORMGATE_WEBHOOK_ALLOW). */
  allow?: WebhookAllowList;
  /** The whole call, resolution included. Default 10 s. */
  timeoutMs?: number;
  /** Bytes of the answer kept; reading stops past them. Default 64 KiB. */
  maxResponseBytes?: number;
  lookup?: HostLookup;
  /** The request's method: POST unless said (the destinations read and change a service's records: GET, PATCH, PUT). */
  method?: 'GET' | 'POST' | 'PATCH' | 'PUT';
}

export interface SafePostResult {
  status: number;
  /** The answer's body, cut at `maxResponseBytes`. */
  body: string;
  /** The answer's Retry-After header, as sent (seconds or an HTTP date), or null. */
  retryAfter: string | null;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;

const systemLookup: HostLookup = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

/**
 * POSTs to a URL an outsider chose without letting it reach the inside network (SSRF): every
 * address the host resolves to must be public, and the connection goes to the address that was
 * checked, so a second DNS answer cannot swap in a private one. No redirect is followed.
 * Refusals are permanent DeliveryErrors; network failures and timeouts are transient.
 */
export async function postJsonSafely(url: string, body: string, headers: Record<string, string>, options: SafePostOptions): Promise<SafePostResult> {
  const target = parseTarget(url);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const address = await withAbort(resolveChecked(target.hostname, options), controller.signal, timeoutMs);
    return await send({
      url: target,
      target: address,
      body,
      headers,
      signal: controller.signal,
      timeoutMs,
      maxBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      method: options.method ?? 'POST',
    });
  } finally {
    clearTimeout(timer);
  }
}

function parseTarget(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new DeliveryError(`refused: ${JSON.stringify(value)} is not an absolute URL`, { permanent: true });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new DeliveryError(`refused: ${url.protocol} URLs are not called, only http and https`, { permanent: true });
  if (url.username || url.password) throw new DeliveryError('refused: the URL carries credentials', { permanent: true });
  return url;
}

/** The address to connect to, after checking every address the host has. */
async function resolveChecked(host: string, options: SafePostOptions): Promise<ResolvedAddress> {
  // NOTE: WHATWG URL keeps IPv6 literals in brackets and has already normalised odd IPv4 spellings.
  const hostname = host.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(hostname);
  // NOTE: not left to the resolver: `localhost.` or `a.localhost` may not be in the hosts file, and
  // a DNS server may answer anything for them, but they always mean this machine.
  const allow = options.allow ?? NO_ALLOWED_TARGETS;
  if (!options.allowPrivate && isLocalhostName(hostname) && !allow.hosts.includes(hostname.replace(/\.$/, '').toLowerCase()))
    throw new DeliveryError(`refused: ${hostname} is a localhost name, which ${LOCALHOST_NAME_PHRASE}`, { permanent: true });
  let addresses: ResolvedAddress[];
  if (family !== 0) {
    addresses = [{ address: hostname, family }];
  } else {
    try {
      addresses = await (options.lookup ?? systemLookup)(hostname);
    } catch (err) {
      throw new DeliveryError(`could not resolve ${hostname}: ${(err as Error).message}`, { permanent: false, cause: err });
    }
  }
  const first = addresses[0];
  if (!first) throw new DeliveryError(`could not resolve ${hostname}: no address`, { permanent: false });
  if (!options.allowPrivate) {
    for (const { address } of addresses) {
      const problem = connectProblem(address, hostname, allow);
      if (problem !== null) throw new DeliveryError(`refused: ${problem}`, { permanent: true });
    }
  }
  return first;
}

// A kept-alive connection is closed after this long unused: below the 5 s that Node.js and Apache
// servers keep one open, so it is rarely the server that closes it first.
const IDLE_CONNECTION_MS = 4_000;
// The errors of a kept-alive connection that the server closed just as it was reused.
const STALE_CONNECTION_CODES = new Set(['ECONNRESET', 'EPIPE']);

/** A reused connection turned out closed before any answer: the request is sent again on a new one. */
class StaleConnection extends Error {}

/**
 * Kept-alive connections, one pool per checked address (and scheme); within it Node.js keeps them
 * by host name and port. A connection is only reused for a request whose host was checked now and
 * resolved to the very address it is connected to. Each webhook used to open and close a connection
 * of its own, which cost three times the CPU of a reused one.
 */
const pools = new LRUCache<string, HttpAgent>({
  max: 64,
  // requests still running on an evicted pool finish; their connections then time out unused
  dispose: (agent) => {
    for (const sockets of Object.values(agent.freeSockets)) {
      sockets?.forEach((socket) => {
        socket.destroy();
      });
    }
  },
});

function poolFor(url: URL, target: ResolvedAddress): HttpAgent {
  const key = `${url.protocol}//${target.address}`;
  let agent = pools.get(key);
  if (!agent) {
    const options = { keepAlive: true, maxSockets: 16, maxFreeSockets: 16, timeout: IDLE_CONNECTION_MS };
    agent = url.protocol === 'https:' ? new HttpsAgent(options) : new HttpAgent(options);
    pools.set(key, agent);
  }
  return agent;
}

/** One POST to send: where, what, and its limits. */
interface Call {
  url: URL;
  target: ResolvedAddress;
  body: string;
  headers: Record<string, string>;
  signal: AbortSignal;
  timeoutMs: number;
  maxBytes: number;
  method: 'GET' | 'POST' | 'PATCH' | 'PUT';
}

async function send(call: Call): Promise<SafePostResult> {
  try {
    return await sendOn(poolFor(call.url, call.target), call);
  } catch (err) {
    if (!(err instanceof StaleConnection)) throw err;
    return sendOn(false, call);
  }
}

function sendOn(agent: HttpAgent | false, { url, target, body, headers, signal, timeoutMs, maxBytes, method }: Call): Promise<SafePostResult> {
  // Hands a new connection the checked address whatever name it asks for; the URL's host name
  // stays in the Host header and in TLS SNI (https.request derives servername from it).
  // NOTE: answered on a later turn, as a real DNS lookup always is. Answered at once, the connect ran
  // inside tls.connect(), before the request had put its 'error' listener on the socket: a connect
  // that fails at once (ENETUNREACH, EHOSTUNREACH, EINVAL, EACCES, EADDRNOTAVAIL) then emitted an
  // unhandled 'error' on the TLSSocket, which ended the process.
  const pinned = ((_hostname: string, lookupOptions: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    setImmediate(() => {
      if (lookupOptions.all) callback(null, [{ address: target.address, family: target.family }]);
      else callback(null, target.address, target.family);
    });
  }) as unknown as LookupFunction;
  const requestOptions: RequestOptions = {
    method,
    headers: method === 'GET' ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
    lookup: pinned,
    agent,
  };

  return new Promise<SafePostResult>((resolve, reject) => {
    let settled = false;
    const finish = (outcome: SafePostResult | DeliveryError | StaleConnection) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const onAbort = () => {
      finish(new DeliveryError(`no complete answer from ${url.host} within ${timeoutMs} ms`, { permanent: false }));
      request.destroy();
    };

    let answered = false;
    let request: ClientRequest;
    try {
      request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, requestOptions, onResponse);
    } catch (err) {
      // e.g. a header value Node.js refuses; nothing was sent
      return finish(new DeliveryError(`could not call ${url.host}: ${(err as Error).message}`, { permanent: false, cause: err }));
    }
    function onResponse(response: IncomingMessage) {
      answered = true;
      const chunks: Buffer[] = [];
      let size = 0;
      const retryAfter = response.headers['retry-after'] ?? null;
      const done = () => finish({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8'), retryAfter });
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size < maxBytes) return;
        done();
        // the rest is not read: the connection is closed rather than kept
        response.destroy();
      });
      // read to its end, the connection goes back to its pool
      response.on('end', done);
      response.on('error', (err) => finish(new DeliveryError(`the answer from ${url.host} broke off: ${err.message}`, { permanent: false, cause: err })));
      response.on('close', () => {
        if (!response.complete) finish(new DeliveryError(`the answer from ${url.host} broke off`, { permanent: false }));
      });
    }
    request.on('error', (err: NodeJS.ErrnoException) => {
      // only before any answer: once the receiver has begun to answer, it has the request
      if (request.reusedSocket && !answered && STALE_CONNECTION_CODES.has(err.code ?? '')) return finish(new StaleConnection());
      finish(new DeliveryError(`could not reach ${url.host}: ${err.message}`, { permanent: false, cause: err }));
    });
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort);
    request.end(body);
  });
}

/** Rejects with a transient timeout when the signal fires first (a lookup cannot be cancelled). */
function withAbort<T>(promise: Promise<T>, signal: AbortSignal, timeoutMs: number): Promise<T> {
  if (signal.aborted) return Promise.reject(new DeliveryError(`no answer within ${timeoutMs} ms`, { permanent: false }));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new DeliveryError(`the host name was not resolved within ${timeoutMs} ms`, { permanent: false }));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}
