// The server `formgate import` reads from: anything that speaks the management API (the hosted
// service, another Formgate). Only GETs, so every request may be retried: a rate limit (429, after
// its Retry-After), a server error or a network failure is tried again with a bounded backoff.
import { setTimeout as sleep } from 'node:timers/promises';

/** A refusal that retrying cannot cure (a bad token, a missing scope, an unknown URL): the import stops, or skips the item. */
export class SourceError extends Error {
  constructor(
    message: string,
    readonly status: number,
    /** The problem's `code` when the source answered a problem document. */
    readonly code: string | null,
  ) {
    super(message);
  }
}

export interface SourceOptions {
  /** The management API's base URL, with its version path (`https://api.example.com/public/v1`). */
  baseUrl: string;
  token: string;
  /** Tries of one request in all (first one included). */
  tries?: number;
  /** First pause of the backoff; it doubles each time, up to `maxDelayMs`. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** One request's deadline. */
  timeoutMs?: number;
  /** The most bytes one answer may have (`--max-answer-mb`); a longer one stops the import, unread past this. */
  maxAnswerBytes?: number;
  /** Told of each retry (the command prints it). */
  onRetry?: (what: string, delayMs: number) => void;
}

const PAGE_LIMIT = 100;
// a listing longer than this (a million items) is not a real one: the source loops
const MAX_PAGES = 10_000;
const TRIES = 8;
const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 60_000;
const TIMEOUT_MS = 60_000;
const MAX_RETRY_AFTER_MS = 15 * 60_000;
/**
 * One answer's default bound: a page of 100 submissions of the largest body intake takes (256 KB,
 * JSON-escaped) with their files' metadata stays under 64 MB; 800 MB pages took the command to 2.6 GB.
 */
export const DEFAULT_MAX_ANSWER_BYTES = 128 * 1024 * 1024;
// an error's problem document is read this far at most (its code and detail are at the start)
const MAX_ERROR_BYTES = 64 * 1024;

/** Reads workspaces, forms, templates and submissions from another server, page by page. */
export class SourceApi {
  readonly baseUrl: string;

  constructor(private readonly options: SourceOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  /** The token as the source sees it (`GET /me`): checks the URL and the token before anything else. */
  async me(): Promise<{ name: unknown; scopes: string[] }> {
    const me = (await this.get('/me')) as { name?: unknown; scopes?: unknown };
    if (typeof me !== 'object' || me === null || !Array.isArray(me.scopes)) {
      throw new SourceError(`${this.baseUrl}/me did not answer a token: is ${this.baseUrl} a management API's base URL (ending in /public/v1)?`, 200, null);
    }
    return { name: me.name, scopes: me.scopes.filter((s): s is string => typeof s === 'string') };
  }

  /** Every item of a list endpoint, a page at a time; the next page is asked for while the caller handles this one. */
  async *pages(path: string, query: Record<string, string> = {}): AsyncGenerator<unknown[]> {
    let cursor: string | null = null;
    let next: Promise<unknown> | null = this.get(path, { ...query, limit: String(PAGE_LIMIT) });
    for (let pages = 1; next; pages++) {
      if (pages > MAX_PAGES) throw new SourceError(`${this.baseUrl}${path} listed more than ${MAX_PAGES} pages; stopped.`, 200, null);
      const page = (await next) as { data?: unknown; hasMore?: unknown; nextCursor?: unknown };
      if (typeof page !== 'object' || page === null || !Array.isArray(page.data)) {
        throw new SourceError(`${this.baseUrl}${path} did not answer a page (data, hasMore, nextCursor).`, 200, null);
      }
      const more: boolean = page.hasMore === true && typeof page.nextCursor === 'string' && page.nextCursor !== cursor;
      cursor = more ? (page.nextCursor as string) : null;
      next = cursor === null ? null : this.get(path, { ...query, limit: String(PAGE_LIMIT), startingAfter: cursor });
      // a failed prefetch is reported when it is awaited, not as an unhandled rejection meanwhile
      next?.catch(() => undefined);
      yield page.data;
    }
  }

  /** A form's template of `kind`, or null when it has none (404). */
  async template(formId: string, kind: 'notification' | 'autoresponder'): Promise<{ code: unknown; mode: unknown; paused: unknown } | null> {
    try {
      return (await this.get(`/forms/${encodeURIComponent(formId)}/templates/${kind}`)) as { code: unknown; mode: unknown; paused: unknown };
    } catch (error) {
      if (error instanceof SourceError && error.status === 404) return null;
      throw error;
    }
  }

  /** GET `path` as JSON, retried while the failure may pass. */
  private async get(path: string, query: Record<string, string> = {}): Promise<unknown> {
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
    const tries = this.options.tries ?? TRIES;
    for (let attempt = 1; ; attempt++) {
      let retryAfterMs: number | null = null;
      let failure: string;
      try {
        const response = await fetch(url, {
          headers: { authorization: `Bearer ${this.options.token}`, accept: 'application/json' },
          signal: AbortSignal.timeout(this.options.timeoutMs ?? TIMEOUT_MS),
          redirect: 'error',
        });
        if (response.ok) return parseJson(await readBounded(response, this.options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES, url), url);
        if (response.status !== 429 && response.status < 500) {
          throw refusal(response.status, await readBounded(response, MAX_ERROR_BYTES, url, { truncate: true }), url, this.baseUrl);
        }
        // a retried answer's body is not needed: not read at all
        await response.body?.cancel();
        failure = `${response.status} from ${url.pathname}`;
        retryAfterMs = retryAfter(response.headers.get('retry-after'));
      } catch (error) {
        if (error instanceof SourceError) throw error;
        failure = `${url.origin} unreachable (${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message})`;
      }
      if (attempt >= tries)
        throw new SourceError(`${failure}, ${tries} times; nothing more was read. Run the import again later: it goes on where it stopped.`, 0, null);
      const backoff = Math.min((this.options.baseDelayMs ?? BASE_DELAY_MS) * 2 ** (attempt - 1), this.options.maxDelayMs ?? MAX_DELAY_MS);
      // the source's own Retry-After wins over the backoff, within reason
      const delay = retryAfterMs !== null ? Math.min(retryAfterMs, MAX_RETRY_AFTER_MS) : backoff * (0.5 + Math.random() / 2);
      this.options.onRetry?.(failure, delay);
      await sleep(delay);
    }
  }
}

/** The source's answer was longer than the bound: retrying cannot make it shorter, so the import stops. */
export class AnswerTooLargeError extends SourceError {
  constructor(url: URL, limit: number, declared: number | null) {
    super(
      `${url.pathname}${url.search} answered ${declared === null ? `more than ${sizeText(limit)}` : `${sizeText(declared)} (Content-Length)`}, past the ` +
        `limit of ${sizeText(limit)} for one answer; it was not read further. A page of 100 submissions is far smaller: check --from, ` +
        'or raise the limit with --max-answer-mb if the source really sends pages this large.',
      200,
      'answer_too_large',
    );
  }
}

function sizeText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB` : `${bytes} bytes`;
}

/**
 * The answer's body as text, read as it streams and abandoned past `limit` bytes (never buffered
 * whole first): refused, or with `truncate` cut there (an error's problem document).
 */
async function readBounded(response: Response, limit: number, url: URL, options: { truncate?: boolean } = {}): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (!options.truncate && Number.isFinite(declared) && declared > limit) {
    await response.body?.cancel();
    throw new AnswerTooLargeError(url, limit, declared);
  }
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > limit) {
      await reader.cancel();
      if (!options.truncate) throw new AnswerTooLargeError(url, limit, null);
      chunks.push(value.subarray(0, limit - size));
      break;
    }
    chunks.push(value);
    size += value.byteLength;
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string, url: URL): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new SourceError(`${url.href} answered something other than JSON: is it a management API's base URL (ending in /public/v1)?`, 200, null);
  }
}

/** A 4xx other than 429, as a message that says what to do. */
function refusal(status: number, text: string, url: URL, baseUrl: string): SourceError {
  let problem: { code?: unknown; detail?: unknown; requiredScope?: unknown } = {};
  try {
    problem = JSON.parse(text) ?? {};
  } catch {
    // not a problem document: the status says enough
  }
  const code = typeof problem.code === 'string' ? problem.code : null;
  const detail = typeof problem.detail === 'string' ? ` (${problem.detail})` : '';
  if (status === 401) return new SourceError(`The source refused the token (401 ${code ?? 'unauthorized'})${detail}: check --token.`, status, code);
  if (status === 403 && code === 'insufficient_scope') {
    const scope = typeof problem.requiredScope === 'string' ? problem.requiredScope : 'a scope';
    return new SourceError(`The token lacks ${scope}; an import needs workspaces:read, forms:read and submissions:read.`, status, code);
  }
  if (status === 404 && url.pathname.endsWith('/me')) {
    return new SourceError(
      `${baseUrl} has no management API (404 on /me): give its base URL with the version path, e.g. https://api.example.com/public/v1.`,
      status,
      code,
    );
  }
  return new SourceError(`${status} ${code ?? ''} on ${url.pathname}${detail}`.replace('  ', ' '), status, code);
}

/** Retry-After in seconds or as an HTTP date, in milliseconds; null when absent or unreadable. */
function retryAfter(value: string | null): number | null {
  if (value === null) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : null;
}
