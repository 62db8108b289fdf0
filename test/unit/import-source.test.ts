import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { SourceApi, type SourceError } from '../../src/cli/import-source.js';
import { checkForm, checkSubmission, isProblem } from '../../src/services/import-checks.js';
import { OutboundGuard } from '../../src/net/outbound-guard.js';

// A stand-in management API on loopback: each test queues the answers it wants, in order.
type Answer = (request: IncomingMessage, response: ServerResponse) => void;
const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Answer =>
  (_request, response) => {
    response.writeHead(status, { 'content-type': status < 300 ? 'application/json' : 'application/problem+json', ...headers });
    response.end(JSON.stringify(body));
  };

describe('the source of formgate import', () => {
  let answers: Answer[] = [];
  let requests: { method: string; url: string; authorization: string | undefined }[] = [];
  const server = createServer((request, response) => {
    requests.push({ method: request.method!, url: request.url!, authorization: request.headers.authorization });
    const answer = answers.shift();
    if (answer) answer(request, response);
    else json(500, { code: 'internal_error' })(request, response);
  });
  let baseUrl = '';
  const source = (tries = 4) => new SourceApi({ baseUrl: `${baseUrl}/`, token: 'tok', tries, baseDelayMs: 1, maxDelayMs: 5 });

  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/public/v1`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    answers = [];
    requests = [];
  });

  it('retries a rate limit (after its Retry-After), a server error and a dropped connection, with GETs only', async () => {
    answers = [
      json(429, { code: 'rate_limited' }, { 'retry-after': '1' }),
      json(503, { code: 'internal_error' }),
      (_request, response) => response.socket!.destroy(),
      json(200, { name: 'export', scopes: ['forms:read'] }),
    ];
    const waits: number[] = [];
    const me = await new SourceApi({
      baseUrl: `${baseUrl}/`,
      token: 'tok',
      tries: 4,
      baseDelayMs: 1,
      maxDelayMs: 5,
      onRetry: (_what, ms) => waits.push(ms),
    }).me();
    assert.deepEqual(me, { name: 'export', scopes: ['forms:read'] });
    // the waits it chose (and slept): the source's Retry-After of 1 s, then the backoff's (1 ms, then 2 ms, each halved at most by the jitter)
    assert.equal(waits.length, 3, JSON.stringify(waits));
    assert.equal(waits[0], 1_000, 'waited for Retry-After: 1');
    assert.ok(waits[1]! >= 1 && waits[1]! <= 2 && waits[2]! >= 2 && waits[2]! <= 4, JSON.stringify(waits));
    assert.equal(requests.length, 4);
    assert.ok(
      requests.every((r) => r.method === 'GET' && r.url === '/public/v1/me' && r.authorization === 'Bearer tok'),
      JSON.stringify(requests),
    );
  });

  it('gives up after its tries, saying that a new run goes on', async () => {
    await assert.rejects(source(3).me(), (error: SourceError) => {
      assert.equal(error.status, 0);
      assert.match(error.message, /500 from \/public\/v1\/me, 3 times.*Run the import again later/);
      return true;
    });
    assert.equal(requests.length, 3);
  });

  it('stops at once on 401, 403 and 404, naming what to do', async () => {
    answers = [json(401, { code: 'invalid_token', detail: 'Unknown token.' })];
    await assert.rejects(source().me(), /refused the token \(401 invalid_token\) \(Unknown token\.\): check --token/);
    answers = [json(403, { code: 'insufficient_scope', requiredScope: 'submissions:read' })];
    await assert.rejects(source().template('f', 'notification'), /lacks submissions:read/);
    answers = [json(404, { code: 'not_found' })];
    await assert.rejects(source().me(), /has no management API \(404 on \/me\)/);
    answers = [json(404, { code: 'not_found' })];
    assert.equal(await source().template('f', 'notification'), null);
    assert.equal(requests.length, 4);
  });

  it('follows the cursors page by page, and stops on a cursor given twice', async () => {
    answers = [
      json(200, { data: [1, 2], hasMore: true, nextCursor: 'c1' }),
      json(200, { data: [3], hasMore: true, nextCursor: 'c2' }),
      json(200, { data: [4], hasMore: true, nextCursor: 'c2' }),
    ];
    const items: unknown[] = [];
    for await (const page of source().pages('/forms', { workspaceId: 'w' })) items.push(...page);
    assert.deepEqual(items, [1, 2, 3, 4]);
    assert.deepEqual(
      requests.map((r) => r.url),
      [
        '/public/v1/forms?workspaceId=w&limit=100',
        '/public/v1/forms?workspaceId=w&limit=100&startingAfter=c1',
        '/public/v1/forms?workspaceId=w&limit=100&startingAfter=c2',
      ],
    );
  });

  it('refuses an answer that is not JSON or not a page', async () => {
    answers = [(_request, response) => response.end('<html>')];
    await assert.rejects(source().me(), /answered something other than JSON/);
    answers = [json(200, { items: [] })];
    await assert.rejects(async () => {
      for await (const _ of source().pages('/workspaces'));
    }, /did not answer a page/);
  });
});

describe("what formgate import accepts of the source's items", () => {
  const form = {
    id: 'form_1',
    name: 'Contact',
    workspaceId: 'w1',
    description: 'x'.repeat(513),
    notificationEmails: ['a@example.com', 'not an address', 'a@example.com'],
    webhookUrl: 'http://127.0.0.1/hook',
    spamProtection: 'HCAPTCHA',
    allowedOrigins: ['https://example.com/path'],
    createdAt: '2024-01-02T03:04:05.678Z',
  };

  it('keeps what fits, drops and names what does not', () => {
    const checked = checkForm(form, new OutboundGuard({ allowPrivate: false }));
    assert.ok(!isProblem(checked), JSON.stringify(checked));
    assert.equal(checked.settings.description, null);
    assert.deepEqual(checked.settings.notificationEmails, ['a@example.com']);
    assert.equal(checked.settings.webhookUrl, null);
    assert.deepEqual(checked.settings.allowedOrigins, []);
    assert.equal(checked.spamProtection, 'HCAPTCHA');
    assert.equal(checked.createdAt, Date.parse(form.createdAt));
    assert.equal(checked.dropped.length, 4, checked.dropped.join('\n'));
    const allowed = checkForm(form, new OutboundGuard({ allowPrivate: true }));
    assert.ok(!isProblem(allowed) && allowed.settings.webhookUrl === form.webhookUrl, 'a private webhook where the instance allows them');
  });

  it('skips ids that an HTML form could not post to, and data that cannot be stored', () => {
    assert.ok(isProblem(checkForm({ ...form, id: 'a/b' }, new OutboundGuard({ allowPrivate: false }))), 'a slash in an id');
    assert.ok(isProblem(checkForm({ ...form, name: '' }, new OutboundGuard({ allowPrivate: false }))), 'an empty name');
    const submission = { id: 's1', formId: 'form_1', data: { a: 1 }, createdAt: '2024-01-02T03:04:05.678Z' };
    assert.deepEqual(checkSubmission(submission, 'form_1'), { id: 's1', data: { a: 1 }, createdAt: Date.parse(submission.createdAt) });
    assert.ok(isProblem(checkSubmission(submission, 'other')), 'listed under another form');
    assert.ok(isProblem(checkSubmission({ ...submission, data: { a: 'x\u0000' } }, 'form_1')), 'U+0000');
    assert.ok(isProblem(checkSubmission({ ...submission, data: [1] }, 'form_1')), 'an array');
    assert.ok(isProblem(checkSubmission({ ...submission, createdAt: 'yesterday' }, 'form_1')), 'a time that is not ISO 8601');
    let deep: unknown = 1;
    for (let i = 0; i < 40; i++) deep = { d: deep };
    assert.ok(isProblem(checkSubmission({ ...submission, data: deep }, 'form_1')), 'nested too deep');
  });
});
