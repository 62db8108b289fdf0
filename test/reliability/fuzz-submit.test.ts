import assert from 'node:assert/strict';
import { METHODS } from 'node:http';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { startApp, type TestApp } from '../helpers/app.js';
import { diffDumps, dumpTables } from '../helpers/dump.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { printFigures } from '../helpers/figures.js';
import { assertProperty, deepJson, FuzzCounts, fuzzSeed, invalidUtf8, nastyString, objectWith, problemDefect, PROTOTYPE_KEYS } from '../helpers/fuzz.js';
import { sendRaw, type RawAnswer, type RawRequest } from '../helpers/raw-http.js';
import { BROWSER_ACCEPT, JSON_ACCEPT } from '../helpers/submit.js';

/**
 * The submit surface fuzzed over raw HTTP: bodies in every encoding it reads (and some it does not),
 * broken in the ways browsers, scripts and attackers break them. Each answer is a success whose
 * submission is stored with the data the visitor sent (as the API lists it), or a refusal (a problem
 * for JSON clients, an error page for browsers) after which nothing stored has changed.
 */

const RUNS = 500;
/** What a filled honeypot looks like in a body: `_gotcha`, `_honeypot` or the form's own trap, `website`. */
const TRAP = /_gotcha|_honeypot|website/;
const SIMPLE_NAMES = ['name', 'email', 'message', 'Zip code', 'été', '数字', 'a-b'];
const CONTROL_NAMES = ['_email.subject', '_email.replyto', '_email.from', '_replyto', '_redirect', '_error', '_append', '_feedback.dark', '_x', '_'];
const TRAP_NAMES = ['_gotcha', '_honeypot', '_gotcha[]', '_gotcha.a'];
const ODD_NAMES = [
  'a[]',
  'a[0]',
  'a[1]',
  'a[b][c]',
  'car.color',
  'a.b.c.d.e.f.g.h.i.j',
  '[',
  ']',
  '.',
  'a..b',
  'a[]]',
  'g-recaptcha-response',
  ...PROTOTYPE_KEYS,
  'a.__proto__.x',
  'constructor[prototype][x]',
  '__proto__[polluted]',
  'hasOwnProperty',
  'toString',
  '',
  ' ',
  'x'.repeat(257),
  'a\u0000b',
  '\ud800',
];

const fieldName = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...SIMPLE_NAMES) },
  { weight: 2, arbitrary: fc.constantFrom(...CONTROL_NAMES) },
  { weight: 1, arbitrary: fc.constantFrom(...TRAP_NAMES) },
  { weight: 3, arbitrary: fc.constantFrom(...ODD_NAMES) },
  { weight: 1, arbitrary: nastyString.map((s) => s.slice(0, 300)) },
);

const fieldValue = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 3, arbitrary: nastyString },
  {
    weight: 1,
    arbitrary: fc.constantFrom('https://example.com/thanks', 'javascript:alert(1)', '//evil.example', 'http://[::1]/', 'mailto:a@b', 'yes', '0', 'false'),
  },
);

const pairs = fc.oneof(
  { weight: 10, arbitrary: fc.array(fc.tuple(fieldName, fieldValue), { minLength: 0, maxLength: 8 }) },
  { weight: 1, arbitrary: fc.constantFrom(999, 1001, 3000).map((n) => Array.from({ length: n }, (_, i): [string, string] => [`f${i}`, 'v'])) },
  { weight: 1, arbitrary: fc.constant<[string, string][]>([['message', 'x'.repeat(300 * 1024)]]) },
);

/** How the fields travel. */
type Encoding =
  | { kind: 'urlencoded'; contentType: string }
  | { kind: 'urlencoded raw'; text: string; bytes: Buffer | null }
  | { kind: 'multipart'; variant: MultipartVariant }
  | { kind: 'json'; variant: JsonVariant }
  | { kind: 'other'; contentType: string | null; body: Buffer };

type MultipartVariant =
  | 'plain'
  | 'quoted boundary'
  | 'missing boundary'
  | 'duplicate boundary'
  | 'unterminated'
  | 'huge part headers'
  | 'file part'
  | 'empty file part'
  | 'encoded filename'
  | 'nameless part'
  | 'LF only'
  | 'part charset'
  | 'many parts';

type JsonVariant =
  | 'flat'
  | 'nested'
  | 'odd controls'
  | 'prototype keys'
  | 'deep 9'
  | 'deep 10000'
  | 'huge'
  | 'array'
  | 'invalid utf-8'
  | 'duplicate keys'
  | 'truncated'
  | 'scalar';

const encoding: fc.Arbitrary<Encoding> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .constantFrom(
        'application/x-www-form-urlencoded',
        'application/x-www-form-urlencoded; charset=UTF-8',
        'application/x-www-form-urlencoded; charset=iso-8859-1',
        'APPLICATION/X-WWW-FORM-URLENCODED',
      )
      .map((contentType) => ({ kind: 'urlencoded' as const, contentType })),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('urlencoded raw' as const),
      text: fc.constantFrom(
        '%',
        '%zz',
        'a=%',
        'a=%FF%FE',
        'a=%ED%A0%80',
        '&&&',
        '=',
        '=x',
        'a',
        'a&a&a',
        'a=1&a=2&a[]=3',
        'a=b=c',
        '+=+',
        'name=%00',
        '__proto__=1&constructor=2',
      ),
      bytes: fc.option(invalidUtf8),
    }),
  },
  {
    weight: 4,
    arbitrary: fc
      .constantFrom<MultipartVariant>(
        'plain',
        'plain',
        'quoted boundary',
        'missing boundary',
        'duplicate boundary',
        'unterminated',
        'huge part headers',
        'file part',
        'empty file part',
        'encoded filename',
        'nameless part',
        'LF only',
        'part charset',
        'many parts',
      )
      .map((variant) => ({ kind: 'multipart' as const, variant })),
  },
  {
    weight: 4,
    arbitrary: fc
      .constantFrom<JsonVariant>(
        'flat',
        'flat',
        'nested',
        'odd controls',
        'prototype keys',
        'deep 9',
        'deep 10000',
        'huge',
        'array',
        'invalid utf-8',
        'duplicate keys',
        'truncated',
        'scalar',
      )
      .map((variant) => ({ kind: 'json' as const, variant })),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('other' as const),
      contentType: fc.constantFrom(
        null,
        'text/plain',
        'text/plain; charset=utf-8',
        'application/json; charset=utf-16le',
        'multipart/mixed; boundary=x',
        'application/xml',
        '',
        'application/x-www-form-urlencoded, application/json',
      ),
      body: fc.constantFrom('name=Ada', '{"name":"Ada"}', 'name: Ada', '').map((text) => Buffer.from(text)),
    }),
  },
);

const ACCEPT = fc.constantFrom<string | null>(
  JSON_ACCEPT,
  JSON_ACCEPT,
  BROWSER_ACCEPT,
  BROWSER_ACCEPT,
  null,
  '*/*',
  'application/problem+json',
  'text/html;q=0, application/json',
  'application/xml',
  'x'.repeat(3000),
);
const ORIGIN = fc.constantFrom<[string, string][]>(
  [],
  [],
  [['Origin', 'https://example.com']],
  [['Origin', 'null']],
  [['Referer', 'https://example.com/contact']],
  [['Origin', 'not a url']],
);
const METHOD = fc.oneof(
  { weight: 20, arbitrary: fc.constant('POST') },
  { weight: 1, arbitrary: fc.constantFrom('GET', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'FOO') },
);
/** Where the post goes: the form, or somewhere near it. */
const PATH = fc.oneof(
  { weight: 20, arbitrary: fc.constant('FORM') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'FORM/',
      'FORM/thanks',
      'FORM?x=1&x=2',
      'FORM%00',
      'FORM%2F',
      '/echo',
      'zzzzzzzzzzzzzzzzzzzz',
      'x'.repeat(101),
      '%00',
      '..',
      '../FORM',
      '',
      '/',
      '%',
      'FORM/../FORM',
    ),
  },
);

interface Submission {
  method: string;
  path: string;
  fields: [string, string][];
  encoding: Encoding;
  accept: string | null;
  origin: [string, string][];
}

/** The fields as the body of `encoding`, with its Content-Type header (null: none sent). */
function encode(fields: [string, string][], how: Encoding): { contentType: string | null; body: Buffer } {
  switch (how.kind) {
    case 'urlencoded':
      return { contentType: how.contentType, body: Buffer.from(new URLSearchParams(fields).toString()) };
    case 'urlencoded raw': {
      const text = Buffer.from(`${new URLSearchParams(fields).toString()}&${how.text}&raw=`);
      return { contentType: 'application/x-www-form-urlencoded', body: how.bytes ? Buffer.concat([text, how.bytes]) : text };
    }
    case 'multipart':
      return multipart(fields, how.variant);
    case 'json':
      return { contentType: 'application/json', body: jsonBody(fields, how.variant) };
    case 'other':
      return { contentType: how.contentType, body: how.body };
  }
}

function multipart(fields: [string, string][], variant: MultipartVariant): { contentType: string; body: Buffer } {
  const boundary = 'fuzz-b0undary';
  const eol = variant === 'LF only' ? '\n' : '\r\n';
  const quote = (name: string) => name.replace(/"/g, '%22').replace(/\r|\n/g, ' ');
  const parts = fields.map(([name, value]) => {
    const extra =
      variant === 'part charset'
        ? `Content-Type: text/plain; charset=iso-8859-1${eol}`
        : variant === 'huge part headers'
          ? `X-Filler: ${'h'.repeat(20_000)}${eol}`
          : '';
    return `--${boundary}${eol}Content-Disposition: form-data; name="${quote(name)}"${eol}${extra}${eol}${value}${eol}`;
  });
  if (variant === 'file part')
    parts.push(
      `--${boundary}${eol}Content-Disposition: form-data; name="upload"; filename="../../etc/passwd"${eol}Content-Type: application/octet-stream${eol}${eol}\u0000\u0001binary${eol}`,
    );
  if (variant === 'empty file part')
    parts.push(`--${boundary}${eol}Content-Disposition: form-data; name="upload"; filename=""${eol}Content-Type: application/octet-stream${eol}${eol}${eol}`);
  if (variant === 'encoded filename')
    parts.push(`--${boundary}${eol}Content-Disposition: form-data; name="upload"; filename*=UTF-8''%E2%82%AC%00.txt${eol}${eol}x${eol}`);
  if (variant === 'nameless part')
    parts.push(`--${boundary}${eol}Content-Disposition: form-data${eol}${eol}no name${eol}`, `--${boundary}${eol}${eol}no headers${eol}`);
  if (variant === 'many parts')
    for (let i = 0; i < 1200; i++) parts.push(`--${boundary}${eol}Content-Disposition: form-data; name="p${i}"${eol}${eol}${i}${eol}`);
  const closing = variant === 'unterminated' ? '' : `--${boundary}--${eol}`;
  const contentType = {
    'quoted boundary': `multipart/form-data; boundary="${boundary}"`,
    'missing boundary': 'multipart/form-data',
    'duplicate boundary': `multipart/form-data; boundary=other; boundary=${boundary}`,
  }[variant as string];
  return { contentType: contentType ?? `multipart/form-data; boundary=${boundary}`, body: Buffer.from(parts.join('') + closing) };
}

const MARK = 'FUZZ-MARK-9c1e';

function jsonBody(fields: [string, string][], variant: JsonVariant): Buffer {
  const flat = objectWith(fields);
  switch (variant) {
    case 'flat':
      return Buffer.from(JSON.stringify(flat));
    case 'nested':
      return Buffer.from(
        JSON.stringify({ ...flat, order: { items: [{ sku: 12345678901234567890n.toString(), qty: 2 }, null, true], total: 1e21, tiny: 5e-324 } }),
      );
    case 'odd controls':
      return Buffer.from(
        JSON.stringify({
          ...flat,
          message: 'hi',
          _email: { subject: { a: [1] }, replyto: ['x', 'a@example.com'] },
          _redirect: 123,
          _append: [true],
          _gotcha: { a: '' },
          _feedback: null,
        }),
      );
    case 'prototype keys':
      return Buffer.from(
        JSON.stringify(objectWith([...fields, ['message', 'hi'], ...PROTOTYPE_KEYS.map((k): [string, unknown] => [k, objectWith([[k, { polluted: true }]])])])),
      );
    case 'deep 9':
      return Buffer.from(`{"message":"hi","deep":${deepJson(8, 'mixed')}}`);
    case 'deep 10000':
      return Buffer.from(`{"message":"hi","deep":${deepJson(10_000, 'mixed')}}`);
    case 'huge':
      return Buffer.from(JSON.stringify({ ...flat, message: 'x'.repeat(260 * 1024) }));
    case 'array':
      return Buffer.from(JSON.stringify([flat]));
    case 'invalid utf-8': {
      const [head, tail] = JSON.stringify({ ...flat, message: MARK }).split(MARK) as [string, string];
      return Buffer.concat([Buffer.from(head), Buffer.from([0xff, 0xc0, 0xaf, 0xed, 0xa0, 0x80]), Buffer.from(tail)]);
    }
    case 'duplicate keys':
      return Buffer.from(`{"message":"first","name":"a",${JSON.stringify(flat).slice(1, -1) || '"x":1'},"message":"second"}`);
    case 'truncated':
      return Buffer.from(JSON.stringify({ ...flat, message: 'hi' }).slice(0, -1));
    case 'scalar':
      return Buffer.from('"just a string"');
  }
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** What must be stored for simple posts, worked out here and not by the service's parser: each value cleaned of what cannot be stored. */
function expectedData(submission: Submission): Record<string, unknown> | null {
  const clean = (text: string) => text.replace(LONE_SURROGATE, '\ufffd').replaceAll('\u0000', '\ufffd');
  const { encoding: how, fields } = submission;
  const simple = fields.every(([name]) => SIMPLE_NAMES.includes(name) || (CONTROL_NAMES.includes(name) && name !== '_'));
  if (!simple) return null;
  if (how.kind === 'urlencoded' && !/iso-8859/.test(how.contentType)) {
    const data: Record<string, string[]> = {};
    for (const [name, value] of fields) if (!name.startsWith('_')) data[name] = [...(data[name] ?? []), clean(value)];
    return Object.fromEntries(Object.entries(data).map(([name, values]) => [name, values.length === 1 ? values[0] : values]));
  }
  if (how.kind === 'json' && how.variant === 'flat') {
    const data: Record<string, unknown> = {};
    for (const [name, value] of fields) if (!name.startsWith('_')) data[name] = clean(value);
    return data;
  }
  return null;
}

describe('fuzz: the submit surface', () => {
  const seed = fuzzSeed('fuzz-submit');
  const counts = new FuzzCounts();
  let app: TestApp;
  let owner: Account;
  let formId = '';
  let lastSeq = 0;
  let refusalsUnchanged = 0;
  let acknowledged = 0;
  let found = 0;
  let trapsDropped = 0;
  // the slowest run and what it sent: the first thing to read when the suite is slow or times out
  let slowest = { ms: 0, label: '' };

  before(async () => {
    app = await startApp();
    owner = await createAccount(app);
    formId = (await createForm(app, owner, { customHoneypot: 'website' })).id;
  });

  after(async () => {
    printFigures('fuzz-submit', {
      requestsSent: counts.requests,
      badInputsTried: counts.badInputs,
      submissionsAcknowledged: acknowledged,
      submissionsFound: found,
      more: {
        '5xx answers': counts.serverErrors,
        'refusals checked unchanged': refusalsUnchanged,
        'honeypot drops': trapsDropped,
        'answers by status': counts.statusSummary(),
        'slowest run': `${Math.round(slowest.ms)} ms: ${slowest.label}`,
        seed,
      },
    });
    await app?.close();
  });

  async function newestRow(): Promise<{ seq: number; id: string; status: string; data: unknown } | undefined> {
    const row = await app.ctx.database.db.selectFrom('submissions').select(['seq', 'id', 'status', 'data']).orderBy('seq', 'desc').limit(1).executeTakeFirst();
    return row && { ...row, data: typeof row.data === 'string' ? JSON.parse(row.data) : row.data };
  }

  /** `data` with the `url` of each file object taken out. */
  function withoutFileLinks(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(withoutFileLinks);
    if (value === null || typeof value !== 'object') return value;
    const object = value as Record<string, unknown>;
    const keys = Object.keys(object);
    if (keys.join() === 'name,type,size,url' && typeof object.url === 'string' && object.url.includes('/files/')) {
      const { url: _url, ...file } = object;
      return file;
    }
    const copy: Record<string, unknown> = {};
    for (const key of keys) Object.defineProperty(copy, key, { value: withoutFileLinks(object[key]), enumerable: true, writable: true, configurable: true });
    return copy;
  }

  /** What `/echo` parses from the same bytes (a GET's query, else the body): the data a submission of them must be stored with. */
  async function echoed(request: RawRequest): Promise<unknown> {
    const queryAt = request.target.indexOf('?');
    const answer = await sendRaw(app.submitUrl, {
      ...request,
      method: request.method === 'GET' ? 'GET' : 'POST',
      target: request.method === 'GET' && queryAt !== -1 ? `/echo${request.target.slice(queryAt)}` : '/echo',
      headers: [...request.headers.filter(([n]) => n !== 'Accept'), ['Accept', JSON_ACCEPT]],
    });
    assert.equal(answer?.status, 200, `echo of a stored submission: ${answer?.status} ${answer?.body.slice(0, 200)}`);
    return JSON.parse(answer!.body);
  }

  function checkRefusalShape(label: string, submission: Submission, answer: RawAnswer): void {
    const type = answer.headers.get('content-type') ?? '';
    if (submission.method === 'HEAD') return;
    if (/^text\/html/.test(type)) {
      assert.notEqual(submission.accept, JSON_ACCEPT, `${label}: a JSON client got an HTML page`);
      assert.match(answer.body, /<html/i, `${label}: an error page`);
      return;
    }
    // NOTE: bytes that are not HTTP (a method Node does not know) are refused before any request exists to read Accept from
    const notHttp = !METHODS.includes(submission.method);
    if (!notHttp) assert.notEqual(submission.accept, BROWSER_ACCEPT, `${label}: a browser got ${type}, not an error page`);
    const defect = problemDefect(answer, `${app.publicUrl}/docs/errors`);
    assert.equal(defect, null, `${label}: ${answer.status} is not a problem document: ${defect}`);
  }

  async function timedCheck(submission: Submission): Promise<void> {
    const started = performance.now();
    await check(submission);
    const ms = performance.now() - started;
    if (ms > slowest.ms) {
      const sizes = submission.fields.map(([, value]) => value.length);
      slowest = {
        ms,
        label: `${submission.method} ${submission.encoding.kind}, ${submission.fields.length} fields, longest value ${Math.max(0, ...sizes)} characters`,
      };
    }
  }

  async function check(submission: Submission): Promise<void> {
    const { contentType, body } = encode(submission.fields, submission.encoding);
    const target = `/${submission.path.replaceAll('FORM', formId).replace(/^\/+/, '')}`;
    const headers: [string, string][] = [...submission.origin];
    if (contentType !== null) headers.push(['Content-Type', contentType]);
    if (submission.accept !== null) headers.push(['Accept', submission.accept]);
    const request: RawRequest = { method: submission.method, target, headers, body };
    // a query string on the form's address is the form's address still
    const plainPost = submission.method === 'POST' && (submission.path === 'FORM' || submission.path.startsWith('FORM?'));
    // a GET with fields in the query is a submission too (a form without `method`)
    const queryGet = submission.method === 'GET' && submission.path.startsWith('FORM?');
    const expected = plainPost ? expectedData(submission) : null;
    if (!(plainPost && expected)) counts.badInputs++;

    const before = await dumpTables(app.ctx.database);
    const answer = await sendRaw(app.submitUrl, request);
    counts.record(answer?.status ?? null);
    const label = `${submission.method} ${target.slice(0, 120)} [${submission.encoding.kind} ${'variant' in submission.encoding ? submission.encoding.variant : ''}; ${submission.fields.length} fields; accept ${String(submission.accept).slice(0, 40)}]`;
    assert.ok(answer, `${label}: the connection closed without an answer`);
    assert.ok(answer.status < 500, `${label}: ${answer.status} ${answer.body.slice(0, 300)}`);

    const newest = await newestRow();
    const stored = newest && newest.seq > lastSeq ? newest : null;
    if (newest) lastSeq = Math.max(lastSeq, newest.seq);
    assert.ok([200, 204, 303].includes(answer.status) || answer.status >= 400, `${label}: unexpected status ${answer.status}`);
    if (!stored) {
      // A refusal, an `_error` redirect, a preflight, or a filled honeypot's "received" (the trap is
      // counted on the form, nothing else changes): nothing else may have changed.
      const after = await dumpTables(app.ctx.database);
      const changed = diffDumps(before, after);
      const trap =
        answer.status < 400 && TRAP.test(body.toString('latin1')) && changed.length > 0 && changed.every((line) => /^(forms|daily_counts):/.test(line));
      if (trap) trapsDropped++;
      else assert.deepEqual(changed, [], `${label}: the answer ${answer.status} stored nothing but changed stored data:\n${changed.slice(0, 5).join('\n')}`);
      if (answer.status >= 400) {
        checkRefusalShape(label, submission, answer);
        refusalsUnchanged++;
      }
      return;
    }
    assert.ok((plainPost || queryGet) && answer.status !== 204 && answer.status < 400, `${label}: answered ${answer.status} and stored a submission`);
    acknowledged++;
    const data = stored.data;
    if (expected) assert.deepEqual(data, expected, `${label}: stored data differs from what was sent`);
    // a stored file's object has its link; /echo stores nothing, so it describes the file without one
    else assert.deepEqual(withoutFileLinks(data), await echoed(request), `${label}: stored data differs from what the same bytes parse to`);
    if (answer.status === 200) {
      const answered = JSON.parse(answer.body);
      assert.equal(answered.id, stored.id, `${label}: answered id`);
      assert.deepEqual(answered.data, data, `${label}: answered data`);
    }
    if (stored.status === 'accepted') {
      const listed = await app.api('GET', `/forms/${formId}/submissions?limit=1`, { token: owner.token });
      assert.equal(listed.body.data[0]?.id, stored.id, `${label}: the API lists the newest submission`);
      assert.deepEqual(listed.body.data[0].data, data, `${label}: the API lists the data stored`);
      found++;
    } else found++;
  }

  test('random and boundary posts: a stored submission holds what was sent, a refusal is a problem or a page and changes nothing', {
    // bounded by RUNS; about 15 s alone, several times that beside other suites on a busy two-core machine
    timeout: 300_000,
  }, async () => {
    const submission: fc.Arbitrary<Submission> = fc.record({ method: METHOD, path: PATH, fields: pairs, encoding, accept: ACCEPT, origin: ORIGIN });
    await assertProperty(
      fc.asyncProperty(submission, (s) => timedCheck(s)),
      { seed, numRuns: RUNS },
    );
    assert.equal(counts.serverErrors, 0, '5xx answers');
  });

  test('the process survives: the submit surface and the API still answer', async () => {
    const health = await sendRaw(app.submitUrl, { method: 'GET', target: '/healthz', headers: [] });
    assert.equal(health?.status, 200);
    const answer = await sendRaw(app.submitUrl, {
      method: 'POST',
      target: `/${formId}`,
      headers: [
        ['Content-Type', 'application/json'],
        ['Accept', JSON_ACCEPT],
      ],
      body: Buffer.from('{"message":"still here"}'),
    });
    assert.equal(answer?.status, 200);
    assert.equal(counts.serverErrors, 0);
  });
});
