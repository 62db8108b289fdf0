import http from 'node:http';
import type { Answer, TestApp } from './app.js';

export type Fields = Record<string, string | string[]> | [string, string][];

export interface PostOptions {
  /** How the body is encoded; `raw` sends `body` as given with `contentType`. */
  as?: 'urlencoded' | 'json' | 'multipart' | 'raw';
  accept?: string;
  headers?: Record<string, string>;
  /** The source address to connect from (any 127/8 address is loopback): a visitor of its own. */
  localAddress?: string;
  contentType?: string;
}

/** What `fetch` would send from a JSON client: `Accept: application/json`. */
export const JSON_ACCEPT = 'application/json';
/** What a browser sends when it navigates (a plain HTML form post). */
export const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** Sends one raw HTTP request and does not follow redirects: the test sees the 303 itself. */
export function request(method: string, url: string, body: string | Buffer | null, headers: Record<string, string>, localAddress?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(url, { method, headers, localAddress, timeout: 10_000 }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        const answerHeaders = new Headers();
        for (const [name, value] of Object.entries(response.headers)) if (typeof value === 'string') answerHeaders.set(name, value);
        const isJson = (answerHeaders.get('content-type') ?? '').includes('json');
        resolve({ status: response.statusCode ?? 0, headers: answerHeaders, body: text === '' ? null : isJson ? JSON.parse(text) : text });
      });
      response.on('error', reject);
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer from ${url} within 10 s`)));
    outgoing.on('error', reject);
    outgoing.end(body ?? undefined);
  });
}

function pairsOf(fields: Fields): [string, string][] {
  if (Array.isArray(fields)) return fields;
  return Object.entries(fields).flatMap(([name, value]) => (Array.isArray(value) ? value.map((v): [string, string] => [name, v]) : [[name, value]]));
}

/** A multipart/form-data body as a browser builds it. */
export function multipartBody(fields: Fields, files: { name: string; filename: string; content: string }[] = []): { body: Buffer; contentType: string } {
  const boundary = `----formgate${Math.random().toString(16).slice(2)}`;
  const parts: string[] = [];
  for (const [name, value] of pairsOf(fields)) parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
  for (const file of files) {
    parts.push(
      `--${boundary}\r\nContent-Disposition: form-data; name="${file.name}"; filename="${file.filename}"\r\nContent-Type: application/octet-stream\r\n\r\n${file.content}\r\n`,
    );
  }
  parts.push(`--${boundary}--\r\n`);
  return { body: Buffer.from(parts.join(''), 'utf8'), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Posts to `{submit_url}/<path>` (a form id, or `echo`) as an HTML form or a `fetch` client would. */
export function post(app: TestApp, path: string, fields: Fields | unknown, options: PostOptions = {}): Promise<Answer> {
  const as = options.as ?? 'urlencoded';
  const headers: Record<string, string> = { ...options.headers };
  if (options.accept) headers.accept = options.accept;
  let body: string | Buffer;
  if (as === 'json') {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(fields);
  } else if (as === 'multipart') {
    const built = multipartBody(fields as Fields);
    headers['content-type'] = built.contentType;
    body = built.body;
  } else if (as === 'raw') {
    if (options.contentType) headers['content-type'] = options.contentType;
    body = fields as string;
  } else {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(pairsOf(fields as Fields)).toString();
  }
  return request('POST', `${app.submitUrl}/${path}`, body, headers, options.localAddress);
}

/** Posts as a `fetch` client asking for JSON. */
export function postJson(app: TestApp, formId: string, fields: unknown, options: PostOptions = {}): Promise<Answer> {
  return post(app, formId, fields, { as: 'json', accept: JSON_ACCEPT, ...options });
}

/** The submissions the API lists for a form (newest first). */
export async function listed(app: TestApp, token: string, formId: string): Promise<any[]> {
  const answer = await app.api('GET', `/forms/${formId}/submissions?limit=100`, { token });
  if (answer.status !== 200) throw new Error(`list: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body.data;
}

/** Every stored row of a form, whatever its status, oldest first (what the API never shows). */
export async function storedRows(app: TestApp, formId: string): Promise<{ id: string; status: string; data: any; emailControls: any }[]> {
  const rows = await app.ctx.database.db
    .selectFrom('submissions')
    .select(['id', 'status', 'data', 'emailControls'])
    .where('formId', '=', formId)
    .orderBy('seq')
    .execute();
  const parse = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);
  return rows.map((r) => ({ ...r, data: parse(r.data), emailControls: parse(r.emailControls) }));
}

/**
 * Loopback source addresses, a new one per call, from 127.<subnet>.0.1 on: each submission from a
 * visitor of its own, as on a real site (the rate limit and the spam filter's repeat signal count
 * per address). Give each test file its own subnet.
 */
export function visitorAddresses(subnet: number): () => { localAddress: string } {
  let next = 0;
  return () => {
    const n = next++;
    return { localAddress: `127.${subnet}.${Math.floor(n / 250)}.${(n % 250) + 1}` };
  };
}
