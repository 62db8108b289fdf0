import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { PROBLEMS, type ProblemCode } from '../../src/errors.js';
import { pino } from 'pino';
import type { AddressInfo } from 'node:net';
import { buildSurfaces } from '../../src/app.js';
import { openContext } from '../../src/context.js';
import { connectTestRedis, TEST_REDIS_URL } from '../helpers/redis.js';
import { startApp, testConfig, type Answer, type TestApp } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/database.js';
import { createAccount, createForm, createToken, type Account } from '../helpers/fixtures.js';
import { assertProblem, assertValidation } from '../helpers/problems.js';
import { request } from '../helpers/submit.js';

const CODES = Object.keys(PROBLEMS) as ProblemCode[];
const anchorOf = (code: string) => code.replace(/_/g, '-');

/** The methods an `Allow` header names, HEAD and OPTIONS aside (Fastify adds HEAD for GET). */
function allowed(answer: Answer): string[] {
  const header = answer.headers.get('allow');
  assert.ok(header, 'a 405 carries Allow');
  return header
    .split(',')
    .map((m) => m.trim().toUpperCase())
    .filter((m) => m && m !== 'HEAD' && m !== 'OPTIONS')
    .sort();
}

/** Writes raw bytes to a surface and reads its whole answer until the server closes the connection. */
function rawExchange(url: string, bytes: string): Promise<{ status: number; headers: string; body: any }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.setTimeout(10_000, () => socket.destroy(new Error(`no answer from ${url} within 10 s`)));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const headers = text.slice(0, split);
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(headers)?.[1]), headers, body: JSON.parse(text.slice(split + 4)) });
    });
  });
}

/** A GET from a loopback source address of its own: another visitor, to the rate limit. */
function getFrom(localAddress: string, url: string, token: string): Promise<Answer> {
  return request('GET', url, null, { authorization: `Bearer ${token}` }, localAddress);
}

function assertRateLimited(app: TestApp, answer: Answer, windowSeconds: number): void {
  assertProblem(app, answer, 'rate_limited');
  const retryAfter = answer.headers.get('retry-after');
  assert.match(retryAfter ?? '', /^\d+$/, 'Retry-After is a number of seconds');
  assert.ok(Number(retryAfter) >= 1 && Number(retryAfter) <= windowSeconds, `Retry-After ${retryAfter} within the window`);
}

describe('errors (section 7)', () => {
  let app: TestApp;
  let account: Account;
  let docsHtml: string;
  before(async () => {
    app = await startApp();
    account = await createAccount(app);
    const docs = await app.fetch('GET', `${app.publicUrl}/docs/errors`);
    docsHtml = String(docs.body);
  });
  after(() => app.close());

  /** The problem's `type` points at an anchor that exists on the errors page. */
  function assertDocumented(answer: Answer): void {
    const type = String(answer.body.type);
    assert.ok(type.startsWith(`${app.publicUrl}/docs/errors#`), type);
    const anchor = type.slice(type.indexOf('#') + 1);
    assert.ok(docsHtml.includes(`id="${anchor}"`), `the errors page has an anchor ${anchor}`);
  }

  describe('unknown routes and methods', () => {
    it('answers an unknown route with 404 not_found on the API', async () => {
      for (const [method, path] of [
        ['GET', '/nope'],
        ['GET', '/public/v1/nope'],
        ['GET', '/public/v2/me'],
        ['POST', '/public/v1/unknown'],
        ['GET', '/public/v1/forms/abc/nope'],
        ['DELETE', '/public'],
      ] as const) {
        const answer = await app.fetch(method, app.publicUrl + path, { token: account.token, ...(method === 'POST' ? { body: { name: 'x' } } : {}) });
        assertProblem(app, answer, 'not_found');
        assertDocumented(answer);
      }
    });

    it('answers an unknown route with 404 not_found on the submit surface', async () => {
      for (const [method, path] of [
        ['GET', '/no/such/route'],
        ['POST', '/no/such/route'],
        ['GET', '/public/v1/me'],
      ] as const) {
        const answer = await app.fetch(method, app.submitUrl + path);
        assertProblem(app, answer, 'not_found');
        assertDocumented(answer);
      }
    });

    it('answers a known path with a wrong method with 405 method_not_allowed and Allow', async () => {
      const form = await createForm(app, account);
      for (const [method, path, methods] of [
        ['PUT', '/me', ['GET']],
        ['POST', '/me', ['GET']],
        ['DELETE', '/workspaces', ['GET', 'POST']],
        ['PUT', '/workspaces', ['GET', 'POST']],
        ['GET', `/workspaces/${account.workspaceId}`, ['PATCH']],
        ['DELETE', `/workspaces/${account.workspaceId}`, ['PATCH']],
        ['DELETE', '/forms', ['GET', 'POST']],
        ['PUT', `/forms/${form.id}`, ['DELETE', 'GET', 'PATCH']],
        ['POST', `/forms/${form.id}`, ['DELETE', 'GET', 'PATCH']],
      ] as const) {
        for (const token of [account.token, undefined]) {
          const answer = await app.api(method, path, token === undefined ? {} : { token });
          assertProblem(app, answer, 'method_not_allowed');
          assertDocumented(answer);
          assert.deepEqual(allowed(answer), [...methods].sort(), `${method} ${path}`);
        }
      }
      // and nothing happened to the form
      const still = await app.api('GET', `/forms/${form.id}`, { token: account.token });
      assert.equal(still.status, 200);
    });
  });

  describe('request bodies', () => {
    const formCount = async () =>
      Number(
        (
          await app.ctx.database.db
            .selectFrom('forms')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('workspaceId', '=', account.workspaceId)
            .executeTakeFirstOrThrow()
        ).n,
      );

    it('answers invalid JSON with 400 validation_error', async () => {
      for (const raw of ['{"name":', '{name: "x"}', "{'name':'x'}", '{"workspaceId":"a","name":"b"}}', 'nul']) {
        const answer = await app.api('POST', '/forms', { token: account.token, raw, headers: { 'content-type': 'application/json' } });
        assertValidation(app, answer, 'body');
        assertDocumented(answer);
      }
    });

    it('refuses a U+0000 anywhere in a body, a query or a path with 400 validation_error naming it, and changes nothing', async () => {
      const before = await formCount();
      const cases = [
        ['POST', '/forms', { workspaceId: account.workspaceId, name: 'a\0b' }, 'name'],
        ['POST', '/forms', { workspaceId: account.workspaceId, name: 'ok', notificationEmails: ['x@example.com', 'y\0@example.com'] }, 'notificationEmails[1]'],
        ['PATCH', `/workspaces/${account.workspaceId}`, { name: 'x\0' }, 'name'],
        ['GET', `/workspaces/${account.workspaceId}/submissions?search=a%00b`, undefined, 'search'],
      ] as const;
      for (const [method, path, body, field] of cases) {
        const answer = await app.api(method, path, { token: account.token, ...(body ? { body } : {}) });
        assertValidation(app, answer, field);
        assert.match(answer.body.errors[0], /U\+0000/);
      }
      assert.equal(await formCount(), before);
      const workspace = await app.ctx.database.db.selectFrom('workspaces').select('name').where('id', '=', account.workspaceId).executeTakeFirstOrThrow();
      assert.doesNotMatch(workspace.name, /\0/);
    });

    it('answers a body that is not JSON with 400 validation_error, and stores nothing', async () => {
      const before = await formCount();
      const json = JSON.stringify({ workspaceId: account.workspaceId, name: 'Not JSON' });
      for (const [type, raw] of [
        ['application/x-www-form-urlencoded', `workspaceId=${account.workspaceId}&name=x`],
        ['text/plain', json],
        ['text/plain; charset=utf-8', 'name=x'],
        ['multipart/form-data; boundary=x', `--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--x--\r\n`],
        ['application/xml', '<form><name>x</name></form>'],
      ] as const) {
        const answer = await app.api('POST', '/forms', { token: account.token, raw, headers: { 'content-type': type } });
        assert.equal(answer.status, 400, `${type}: ${answer.status} ${JSON.stringify(answer.body)}`);
        assertValidation(app, answer, 'body');
      }
      const patch = await app.api('PATCH', `/workspaces/${account.workspaceId}`, {
        token: account.token,
        raw: 'name=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assertValidation(app, patch, 'body');
      assert.equal(await formCount(), before);
    });

    it('names the part of the request that is invalid: the body, the query or the path', async () => {
      const body = await app.api('POST', '/forms', { token: account.token, body: { workspaceId: account.workspaceId } });
      assertValidation(app, body, 'name');
      assert.equal(body.body.detail, 'The request body is invalid.');
      const query = await app.api('GET', '/workspaces?limit=0', { token: account.token });
      assertValidation(app, query, 'limit');
      assert.equal(query.body.detail, 'The request query is invalid.');
      const form = await createForm(app, account);
      const path = await app.api('GET', `/forms/${form.id}/templates/welcome`, { token: account.token });
      assertValidation(app, path, 'kind');
      assert.equal(path.body.detail, 'The request path is invalid.');
    });

    it('answers an empty or non-object JSON body with 400 validation_error', async () => {
      const empty = await app.api('POST', '/forms', { token: account.token, raw: '', headers: { 'content-type': 'application/json' } });
      assertValidation(app, empty, 'body');
      const none = await app.api('POST', '/forms', { token: account.token });
      assertValidation(app, none, 'body');
      for (const raw of ['null', '[]', '"x"', '42']) {
        const answer = await app.api('POST', '/forms', { token: account.token, raw, headers: { 'content-type': 'application/json' } });
        assertValidation(app, answer, 'body');
      }
      const object = await app.api('POST', '/forms', { token: account.token, body: {} });
      assertValidation(app, object, 'workspaceId', 'name');
    });

    it('lists at most 50 problems and never quotes a long key at length', async () => {
      const body: Record<string, unknown> = { workspaceId: account.workspaceId, name: 'Many' };
      for (let i = 0; i < 20_000; i++) body[`unknown${i}`] = 1;
      body['k'.repeat(100_000)] = 1;
      const answer = await app.api('POST', '/forms', { token: account.token, body });
      assertValidation(app, answer, 'unknown0');
      assert.equal(answer.body.errors.length, 50);
      assert.equal(answer.body.errors[49], 'body: 19952 more problems not listed');
      assert.ok(JSON.stringify(answer.body).length < 4000, `a short answer: ${JSON.stringify(answer.body).length} characters`);
      const long = await app.api('POST', '/forms', {
        token: account.token,
        body: { workspaceId: account.workspaceId, name: 'Long', ['k'.repeat(100_000)]: 1 },
      });
      assertValidation(app, long);
      assert.deepEqual(long.body.errors, [`${'k'.repeat(100)}…: is not a known field`]);
      assert.ok(JSON.stringify(long.body).length < 600, `a short answer: ${JSON.stringify(long.body).length} characters`);
    });

    it('answers a body over the limit (2 MiB on the API) with 413 payload_too_large, and reads one under it', async () => {
      const before = await formCount();
      const over = { workspaceId: account.workspaceId, name: 'Big', description: 'a'.repeat(2 * 1024 * 1024 + 1) };
      const answer = await app.api('POST', '/forms', { token: account.token, body: over });
      assertProblem(app, answer, 'payload_too_large');
      assertDocumented(answer);
      // an anonymous caller is refused either way (its body need not be read at all)
      const anonymous = await app.api('POST', '/forms', { body: over });
      assertProblem(app, anonymous, anonymous.status === 401 ? 'invalid_token' : 'payload_too_large');
      const form = await createForm(app, account);
      assertProblem(
        app,
        await app.api('PATCH', `/forms/${form.id}`, { token: account.token, body: { description: 'b'.repeat(3 * 1024 * 1024) } }),
        'payload_too_large',
      );
      // just under the limit the body is read and judged on its content
      const under = await app.api('POST', '/forms', {
        token: account.token,
        body: { workspaceId: account.workspaceId, name: 'Big', description: 'a'.repeat(2 * 1024 * 1024 - 1024) },
      });
      assertValidation(app, under, 'description');
      assert.equal(await formCount(), before + 1);
    });
  });

  describe('errors answered before any route runs', () => {
    const surfaces = () => [app.baseUrl, app.submitUrl];

    it('answers a path segment over 100 characters with 414 uri_too_long, without quoting it', async () => {
      const id = 'x'.repeat(101);
      for (const path of [`/forms/${id}`, `/workspaces/${id}/submissions`, `/forms/${id}/templates/notification`]) {
        for (const token of [account.token, undefined]) {
          const answer = await app.api('GET', path, token ? { token } : {});
          assertProblem(app, answer, 'uri_too_long');
          assertDocumented(answer);
          assert.ok(answer.headers.get('x-request-id'), 'carries a request id');
          assert.ok(!JSON.stringify(answer.body).includes(id), 'does not quote the path');
        }
      }
      // 100 characters are routed as usual
      assertProblem(app, await app.api('GET', `/forms/${'x'.repeat(100)}`, { token: account.token }), 'not_found');
    });

    it('answers a malformed percent escape in the path with 400 validation_error naming path', async () => {
      for (const path of ['/forms/%ff%fe', '/forms/%E0%A4%A', '/workspaces/%ED%A0%80/submissions']) {
        const answer = await app.api('GET', path, { token: account.token });
        assertValidation(app, answer, 'path');
        assertDocumented(answer);
      }
    });

    it('answers a browser with an error page, not a problem, for a malformed or over-long page address, an unknown page and a method a page does not take', async () => {
      const browser = { accept: 'text/html' };
      for (const path of ['/forms/%ED%A0%80/settings', '/w/%zz/settings', `/forms/${'x'.repeat(101)}/settings`]) {
        for (const method of ['GET', 'POST']) {
          const answer = await request(method, `${app.publicUrl}${path}`, method === 'POST' ? 'name=x' : null, {
            ...browser,
            'content-type': 'application/x-www-form-urlencoded',
          });
          assert.equal(answer.status, path.includes('xxxx') ? 414 : 400, `${method} ${path}`);
          assert.match(answer.headers.get('content-type') ?? '', /^text\/html/, `${method} ${path}`);
          assert.match(answer.body, /<h1[^>]*>Something is not right<\/h1>/);
          assert.ok(answer.headers.get('content-security-policy'), 'a strict page');
        }
      }
      // a browser's post to an address that is no page gets the page-not-found page, as a GET does
      const unknown = await request('POST', `${app.publicUrl}/forms/x/settings/secrets/..`, 'secret=1', {
        ...browser,
        'content-type': 'application/x-www-form-urlencoded',
      });
      assert.equal(unknown.status, 404);
      assert.match(unknown.body, /<h1[^>]*>Page not found<\/h1>/);
      // an unknown address holding a NUL, refused before the not-found page, is a page too
      const nul = await request('POST', `${app.publicUrl}/w/%00/invitations/../revoke`, 'a=b', {
        ...browser,
        'content-type': 'application/x-www-form-urlencoded',
      });
      assert.equal(nul.status, 400);
      assert.match(nul.body, /<h1[^>]*>Something is not right<\/h1>/);
      // and a method a page does not take gets a page naming the methods it does
      const wrongMethod = await request('DELETE', `${app.publicUrl}/login`, null, browser);
      assert.equal(wrongMethod.status, 405);
      assert.match(wrongMethod.headers.get('allow') ?? '', /GET/);
      assert.match(wrongMethod.body, /<h1[^>]*>Something is not right<\/h1>/);
      // the API keeps answering problems, to browsers too
      const api = await request('GET', `${app.baseUrl}/forms/%zz`, null, browser);
      assertValidation(app, api, 'path');
    });

    it('answers a URL over 16 KB with 431 headers_too_large on both surfaces, without quoting it', async () => {
      const long = 'q'.repeat(17 * 1024);
      for (const url of [`${app.baseUrl}/forms?x=${long}`, `${app.submitUrl}/${long}`, `${app.publicUrl}/${long}`]) {
        const answer = await request('GET', url, null, { authorization: `Bearer ${account.token}` });
        assertProblem(app, answer, 'headers_too_large');
        assertDocumented(answer);
        assert.ok(!JSON.stringify(answer.body).includes('qqqq'), 'does not quote the URL');
      }
      const headers = await request('GET', `${app.submitUrl}/healthz`, null, { 'x-filler': long });
      assertProblem(app, headers, 'headers_too_large');
    });

    it('answers bytes that are not HTTP/1.1 with a 400 problem on both surfaces', async () => {
      for (const url of surfaces()) {
        for (const bytes of ['GARBAGE\r\n\r\n', 'GET / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n', 'GET /\x01 HTTP/1.1\r\n\r\n']) {
          const answer = await rawExchange(url, bytes);
          assert.equal(answer.status, 400, `${url} ${JSON.stringify(bytes)}: ${answer.headers}`);
          assert.match(answer.headers, /content-type: application\/problem\+json/i);
          assert.equal(answer.body.code, 'validation_error');
          assert.equal(answer.body.type, `${app.publicUrl}/docs/errors#validation-error`);
          assert.deepEqual(answer.body.errors, ['request: is not valid HTTP/1.1']);
        }
      }
    });

    it('serves a request with an Expect it does not know as usual, where Node answered a bare 417', async () => {
      const me = await request('GET', `${app.baseUrl}/me`, null, { authorization: `Bearer ${account.token}`, expect: 'something-else' });
      assert.equal(me.status, 200, JSON.stringify(me.body));
      const echo = await request('POST', `${app.submitUrl}/echo`, 'a=1', { 'content-type': 'application/x-www-form-urlencoded', expect: 'x-unknown=1' });
      assert.equal(echo.status, 200, JSON.stringify(echo.body));
      assert.deepEqual(echo.body, { a: '1' });
      const anonymous = await request('GET', `${app.baseUrl}/me`, null, { expect: 'something-else' });
      assertProblem(app, anonymous, 'invalid_token');
    });

    it('never quotes an unknown path or a content type at length', async () => {
      const long = 'p'.repeat(8 * 1024);
      for (const url of [`${app.publicUrl}/${long}`, `${app.baseUrl}/${long}`, `${app.submitUrl}/${long}`]) {
        const answer = await app.fetch('GET', url, { token: account.token });
        assertProblem(app, answer, 'not_found');
        assert.ok(JSON.stringify(answer.body).length < 600, `a short answer: ${JSON.stringify(answer.body).length} characters`);
      }
      const type = `application/${'t'.repeat(8 * 1024)}`;
      for (const url of [`${app.baseUrl}/forms`, `${app.submitUrl}/echo`]) {
        const answer = await app.fetch('POST', url, { token: account.token, raw: 'x', headers: { 'content-type': type } });
        assertValidation(app, answer, 'body');
        assert.ok(JSON.stringify(answer.body).length < 800, `a short answer: ${JSON.stringify(answer.body).length} characters`);
      }
    });
  });

  describe('deep and unstorable JSON on the API', () => {
    const nest = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

    it('refuses a body nested thousands of levels deep with 400 validation_error before parsing, on any route', async () => {
      const deep = `{"workspaceId": "w", "name": ${'['.repeat(5000)}${']'.repeat(5000)}}`;
      for (const [method, path] of [
        ['POST', '/forms'],
        ['PATCH', `/workspaces/${account.workspaceId}`],
        ['POST', '/nope'],
      ] as const) {
        for (const body of [deep, nest(5000), nest(33)]) {
          const answer = await app.api(method, path, { token: account.token, raw: body, headers: { 'content-type': 'application/json' } });
          assertValidation(app, answer, 'body');
          assert.deepEqual(answer.body.errors, ['body: nests objects and arrays more than 32 levels deep'], `${method} ${path}`);
        }
      }
      // 32 levels are parsed and judged on their content; brackets in strings are text
      assertValidation(app, await app.api('POST', '/forms', { token: account.token, raw: nest(32), headers: { 'content-type': 'application/json' } }), 'a');
      const text = await app.api('POST', '/forms', {
        token: account.token,
        body: { workspaceId: account.workspaceId, name: 'Brackets', description: '['.repeat(400) },
      });
      assert.equal(text.status, 201, JSON.stringify(text.body));
    });

    it('refuses a lone UTF-16 surrogate in a body or a key with 400 validation_error naming it, and changes nothing', async () => {
      const form = await createForm(app, account, { name: 'Before' });
      const cases = [
        ['POST', '/forms', `{"workspaceId": "${account.workspaceId}", "name": "a\\ud800"}`, 'name'],
        ['PATCH', `/forms/${form.id}`, '{"name": "\\udc00x"}', 'name'],
        ['PATCH', `/forms/${form.id}`, '{"notificationEmails": ["a@example.com", "b\\udfff@example.com"]}', 'notificationEmails[1]'],
        ['PATCH', `/forms/${form.id}`, '{"na\\ud800me": "x"}', 'na\uFFFDme'],
        ['PUT', `/forms/${form.id}/templates/notification`, '{"code": "<p>{{name}}\\ud800</p>"}', 'code'],
        ['PATCH', `/workspaces/${account.workspaceId}`, '{"name": "\\ud800"}', 'name'],
      ] as const;
      for (const [method, path, raw, field] of cases) {
        const answer = await app.api(method, path, { token: account.token, raw, headers: { 'content-type': 'application/json' } });
        assertValidation(app, answer, field);
        assert.match(answer.body.errors[0], /must be valid Unicode/);
      }
      const still = await app.api('GET', `/forms/${form.id}`, { token: account.token });
      assert.equal(still.body.name, 'Before');
      // a surrogate pair is one character, and welcome
      const emoji = await app.api('PATCH', `/forms/${form.id}`, {
        token: account.token,
        raw: '{"name": "\\ud83d\\ude00"}',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(emoji.status, 200, JSON.stringify(emoji.body));
      assert.equal(emoji.body.name, '😀');
    });
  });

  describe('problem documents', () => {
    it('are application/problem+json with a type pointing at the code’s anchor', async () => {
      const lacking = await createToken(app, account.userId, ['forms:read']);
      const free = await createAccount(app, { plan: 'FREE' });
      const answers: [ProblemCode, Answer][] = [
        ['invalid_token', await app.api('GET', '/me')],
        ['insufficient_scope', await app.api('GET', '/workspaces', { token: lacking })],
        ['upgrade_required', await app.api('GET', `/forms?workspaceId=${free.workspaceId}`, { token: free.token })],
        ['not_found', await app.api('GET', '/forms/doesnotexist', { token: account.token })],
        ['validation_error', await app.api('GET', '/workspaces?limit=0', { token: account.token })],
        ['method_not_allowed', await app.api('PATCH', '/me', { token: account.token })],
      ];
      for (const [code, answer] of answers) {
        assertProblem(app, answer, code);
        assert.match(answer.headers.get('content-type') ?? '', /^application\/problem\+json/);
        assert.equal(answer.body.type, `${app.publicUrl}/docs/errors#${anchorOf(code)}`);
        assertDocumented(answer);
      }
    });

    it('GET /docs/errors is an HTML page with an anchor for every code', async () => {
      const docs = await app.fetch('GET', `${app.publicUrl}/docs/errors`);
      assert.equal(docs.status, 200);
      assert.match(docs.headers.get('content-type') ?? '', /^text\/html/);
      const html = String(docs.body);
      assert.match(html, /^<!doctype html>/i);
      const ids = [...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]);
      for (const code of CODES) {
        assert.equal(ids.filter((id) => id === anchorOf(code)).length, 1, `one anchor ${anchorOf(code)}`);
        assert.ok(html.includes(code), `the page names ${code}`);
      }
    });
  });

  describe('request ids and health', () => {
    it('sends x-request-id on every answer and echoes a sane incoming one', async () => {
      const answers = [
        await app.api('GET', '/me', { token: account.token }),
        await app.api('GET', '/me'),
        await app.fetch('GET', `${app.publicUrl}/nope`),
        await app.fetch('GET', `${app.submitUrl}/no/such/route`),
        await app.fetch('GET', `${app.publicUrl}/healthz`),
      ];
      const ids = answers.map((a) => a.headers.get('x-request-id'));
      for (const id of ids) assert.ok(id && id.length > 0 && id.length <= 64, `x-request-id ${id}`);
      assert.equal(new Set(ids).size, ids.length, 'each answer has its own id');

      for (const id of ['abc-123', 'req.1:2_3', 'A'.repeat(64)]) {
        for (const url of [`${app.baseUrl}/me`, `${app.submitUrl}/no/such/route`]) {
          const answer = await app.fetch('GET', url, { token: account.token, headers: { 'x-request-id': id } });
          assert.equal(answer.headers.get('x-request-id'), id, url);
        }
      }
      for (const id of ['a b', '<script>', 'A'.repeat(65), 'x/y', 'x;y=1']) {
        const answer = await app.api('GET', '/me', { token: account.token, headers: { 'x-request-id': id } });
        assert.equal(answer.status, 200);
        const given = answer.headers.get('x-request-id');
        assert.ok(given && given !== id && /^[\w.:-]{1,64}$/.test(given), `an unsafe id (${id}) is replaced, got ${given}`);
      }
    });

    it('GET /healthz answers 200 with status ok on both surfaces', async () => {
      for (const url of [`${app.publicUrl}/healthz`, `${app.submitUrl}/healthz`]) {
        const answer = await app.fetch('GET', url);
        assert.equal(answer.status, 200, url);
        assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
        assert.equal(answer.body.status, 'ok');
      }
    });
  });
});

describe('a server fault', () => {
  let app: TestApp;
  let account: Account;
  before(async () => {
    app = await startApp();
    account = await createAccount(app);
  });
  // close() tolerates the destroyed database
  after(() => app.close());

  it('answers 500 internal_error without internals, and /healthz 503, once the database is gone', async () => {
    assert.equal((await app.api('GET', '/me', { token: account.token })).status, 200, 'works before');
    await app.ctx.database.destroy();

    for (const [method, path] of [
      ['GET', '/me'],
      ['GET', '/workspaces'],
      ['GET', `/forms?workspaceId=${account.workspaceId}`],
    ] as const) {
      const answer = await app.api(method, path, { token: account.token });
      assertProblem(app, answer, 'internal_error');
      assert.ok(answer.headers.get('x-request-id'));
      assert.deepEqual(Object.keys(answer.body).sort(), ['code', 'detail', 'status', 'title', 'type'], 'no extra fields such as a stack');
      const text = JSON.stringify(answer.body);
      assert.doesNotMatch(text, /kysely|sqlite|postgres|pg-pool|pool|stack|database|connection|select|\bat \S+ \(|\.ts\b|\.js\b|node_modules|Error:/i, text);
    }

    for (const url of [`${app.publicUrl}/healthz`, `${app.submitUrl}/healthz`]) {
      const answer = await app.fetch('GET', url);
      assert.equal(answer.status, 503, url);
      assert.notEqual(answer.body?.status, 'ok');
    }
  });
});

describe('rate limiting', () => {
  it('answers the 4th request in the window from one address with 429 rate_limited and Retry-After', async () => {
    const app = await startApp({ rateLimitApi: '3/1m' });
    try {
      const account = await createAccount(app);
      for (let i = 1; i <= 3; i++) assert.equal((await app.api('GET', '/me', { token: account.token })).status, 200, `request ${i}`);
      assertRateLimited(app, await app.api('GET', '/me', { token: account.token }), 60);
      assertRateLimited(app, await app.api('GET', '/workspaces', { token: account.token }), 60);
      // per address: another loopback address is not limited
      const elsewhere = await getFrom('127.0.0.2', `${app.baseUrl}/me`, account.token);
      assert.equal(elsewhere.status, 200, JSON.stringify(elsewhere.body));
      // the health check stays reachable for load balancers
      assert.equal((await app.fetch('GET', `${app.publicUrl}/healthz`)).status, 200);
    } finally {
      await app.close();
    }
  });

  it('limits requests without a valid token too: a token-guessing burst from one address is blocked', async () => {
    const app = await startApp({ rateLimitApi: '3/1m' });
    try {
      const account = await createAccount(app);
      const guesses = [{ token: 'not-a-token' }, {}, { token: `fg_${'x'.repeat(43)}` }];
      for (const options of guesses) assertProblem(app, await app.api('GET', '/workspaces', options), 'invalid_token');
      assertRateLimited(app, await app.api('GET', '/workspaces', { token: 'still-guessing' }), 60);
      assertRateLimited(app, await app.api('GET', '/me'), 60);
      // the burst counts against the address, whoever it later claims to be
      assertRateLimited(app, await app.api('GET', '/me', { token: account.token }), 60);
    } finally {
      await app.close();
    }
  });

  it('shares the count between instances through Redis', async (t) => {
    const redis = await connectTestRedis(t);
    if (!redis) return;
    const redisUrl = TEST_REDIS_URL;
    // A source address of its own for this run (any 127/8 address is loopback): the counter key is
    // fresh whatever earlier or concurrent runs left behind; drop it anyway, before and after.
    const source = `127.${randomInt(1, 255)}.${randomInt(1, 255)}.${randomInt(2, 255)}`;
    const otherSource = `127.${randomInt(1, 255)}.${randomInt(1, 255)}.1`;
    const dropKeys = async () => {
      const keys = (await redis.keys('formgate:rl-*')).filter((k) => k.endsWith(`:${source}`) || k.endsWith(`:${otherSource}`));
      if (keys.length > 0) await redis.del(...keys);
    };
    await dropKeys();
    const a = await startApp({ rateLimitApi: '3/1m', redisUrl });
    const b = await startApp({ rateLimitApi: '3/1m', redisUrl });
    try {
      const onA = await createAccount(a);
      const onB = await createAccount(b);
      assert.equal((await getFrom(source, `${a.baseUrl}/me`, onA.token)).status, 200, '1st, on A');
      assert.equal((await getFrom(source, `${b.baseUrl}/me`, onB.token)).status, 200, '2nd, on B');
      assert.equal((await getFrom(source, `${a.baseUrl}/me`, onA.token)).status, 200, '3rd, on A');
      assertRateLimited(b, await getFrom(source, `${b.baseUrl}/me`, onB.token), 60);
      assertRateLimited(a, await getFrom(source, `${a.baseUrl}/me`, onA.token), 60);
      const keys = await redis.keys('formgate:rl-api:*');
      assert.ok(
        keys.some((k) => k.endsWith(`:${source}`)),
        `the counter of ${source} is in Redis: ${keys.join(', ')}`,
      );
      // another address has its own count
      const elsewhere = await getFrom(otherSource, `${b.baseUrl}/me`, onB.token);
      assert.equal(elsewhere.status, 200, JSON.stringify(elsewhere.body));
    } finally {
      await Promise.allSettled([a.close(), b.close()]);
      await dropKeys().catch(() => undefined);
      redis.disconnect();
    }
  });
});

describe('shutting down', () => {
  it('answers a request that arrives on an open connection while the API closes with 503 shutting_down, and finishes the one under way', async () => {
    const database = await createTestDatabase();
    const ctx = await openContext(testConfig(database));
    const surfaces = await buildSurfaces(ctx, pino({ level: 'silent' }));
    try {
      // registered after the surface's own preClose hook, so it runs once closing has begun
      let closingBegun!: () => void;
      const closing = new Promise<void>((resolve) => (closingBegun = resolve));
      surfaces.api.addHook('preClose', (done) => {
        closingBegun();
        done();
      });
      await surfaces.api.listen({ host: '127.0.0.1', port: 0 });
      const { port } = surfaces.api.server.address() as AddressInfo;

      // A: a request whose body is still to come when the close begins; B: pipelined behind it
      const socket = net.connect(port, '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      const ended = new Promise<void>((resolve, reject) => {
        socket.on('close', () => resolve());
        socket.on('error', reject);
      });
      socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
      const received = new Promise((resolve) => surfaces.api.server.once('request', resolve));
      socket.write('POST /nope HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n');
      await received;
      const closed = surfaces.api.close();
      await closing;
      socket.write('{}GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
      await ended;
      await closed;

      const answers = Buffer.concat(chunks)
        .toString('utf8')
        .split(/(?=HTTP\/1\.1 )/);
      assert.equal(answers.length, 2, answers.join('\n---\n'));
      assert.match(answers[0]!, /^HTTP\/1\.1 404 /, 'the request under way is finished as usual');
      assert.match(answers[1]!, /^HTTP\/1\.1 503 /);
      assert.match(answers[1]!, /\r\ncontent-type: application\/problem\+json/i);
      assert.match(answers[1]!, /\r\nretry-after: 30\r\n/i);
      const body = JSON.parse(answers[1]!.slice(answers[1]!.indexOf('\r\n\r\n') + 4));
      assert.equal(body.code, 'shutting_down');
      assert.equal(body.type, `${ctx.config.publicUrl}/docs/errors#shutting-down`);
    } finally {
      await surfaces.close();
      await ctx.close().catch(() => undefined);
      await database.drop();
    }
  });
});
