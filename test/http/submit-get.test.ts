import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { listen } from '../../src/cli/serve.js';
import { openContext } from '../../src/context.js';
import { startApp, testConfig, type TestApp } from '../helpers/app.js';
import { createTestDatabase, TEST_DIALECT } from '../helpers/database.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { assertProblem } from '../helpers/problems.js';
import { BROWSER_ACCEPT, JSON_ACCEPT, post, request, storedRows, visitorAddresses } from '../helpers/submit.js';

const CONTACT = { name: 'Ada Lovelace', email: 'ada@example.com', message: 'A quote for the analytical engine, please.' };
const SITE = 'https://shop.example.com';
const EVIL = 'https://evil.example.net';

/**
 * A form without `method` is sent by the browser as GET, its fields in the query: the hosted
 * service's own Hugo, Jekyll and WordPress examples do this (issue 24, item 9), and its echo answers
 * GET too (item 11). A GET with fields is a submission like a POST; one without says what the address is.
 */
describe(`submit surface: GET submissions and /echo (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let account: Account;
  const visitor = visitorAddresses(61);
  before(async () => {
    app = await startApp();
    account = await createAccount(app);
  });
  after(() => app.close());

  const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
    request(method, `${app.submitUrl}/${path}`, null, headers, visitor().localAddress);
  const query = (fields: [string, string][] | Record<string, string>) => new URLSearchParams(fields).toString();

  it('stores a GET with fields exactly as the same fields posted, arrays and objects included, and answers as a POST', async () => {
    const form = await createForm(app, account);
    // the hosted service's arrays-and-objects and special-input-types pages, sent by a form without `method`
    const fields: [string, string][] = [
      ['ingredients[0]', 'flour'],
      ['ingredients[1]', 'water'],
      ['car[0].manufacturer', 'Ferrari'],
      ['car[0].color', 'Red'],
      ['has-bike', 'Bike'],
      ['color', 'blue'],
      ['message', 'Two words & a + sign'],
    ];
    const page = await get(`${form.id}?${query(fields)}`, { accept: BROWSER_ACCEPT, referer: `${SITE}/contact` });
    assert.equal(page.status, 303);
    assert.match(page.headers.get('location')!, new RegExp(`^${app.submitUrl}/${form.id}/thanks`));
    assert.equal(page.headers.get('cache-control'), 'no-store', 'an answer to a submission is never cached');
    const posted = await post(app, form.id, fields, { accept: JSON_ACCEPT });
    const json = await get(`${form.id}?${query(fields)}`, { accept: JSON_ACCEPT });
    assert.equal(json.status, 200, JSON.stringify(json.body));
    assert.deepEqual(json.body.data, posted.body.data);
    const rows = await storedRows(app, form.id);
    assert.equal(rows.length, 3);
    assert.deepEqual(rows[0]!.data, {
      ingredients: ['flour', 'water'],
      car: [{ manufacturer: 'Ferrari', color: 'Red' }],
      'has-bike': 'Bike',
      color: 'blue',
      message: 'Two words & a + sign',
    });
    for (const row of rows) assert.deepEqual(row.data, rows[0]!.data);
    assert.equal(rows[2]!.id, json.body.id);
  });

  it('runs a GET through the same pipeline: honeypot, empty, controls and the rate limit', async () => {
    const form = await createForm(app, account);
    const trapped = await get(`${form.id}?${query({ ...CONTACT, _gotcha: 'bot' })}`, { accept: JSON_ACCEPT });
    assert.equal(trapped.status, 200, 'a bot sees success');
    assertProblem(app, await get(`${form.id}?${query({ message: '  ' })}`, { accept: JSON_ACCEPT }), 'validation_error');
    const withControls = await get(`${form.id}?${query({ ...CONTACT, '_email.subject': 'From a GET' })}`, { accept: JSON_ACCEPT });
    assert.equal(withControls.status, 200);
    const rows = await storedRows(app, form.id);
    assert.equal(rows.length, 1, 'only the real one is stored');
    assert.deepEqual(rows[0]!.data, CONTACT);
    assert.deepEqual(rows[0]!.emailControls, { '_email.subject': 'From a GET' });

    const limited = await startApp({ rateLimitSubmit: '2/1m' });
    try {
      const other = await createForm(limited, await createAccount(limited));
      const send = () => request('GET', `${limited.submitUrl}/${other.id}?${query(CONTACT)}`, null, { accept: JSON_ACCEPT }, '127.61.250.1');
      assert.equal((await send()).status, 200);
      assert.equal((await send()).status, 200);
      assertProblem(limited, await send(), 'rate_limited');
      assert.equal((await storedRows(limited, other.id)).length, 2);
    } finally {
      await limited.close();
    }
  });

  it('answers a GET without fields, and any HEAD, with what the address is, and stores nothing', async () => {
    const form = await createForm(app, account);
    for (const path of [form.id, `${form.id}?`, `${form.id}?=x`]) {
      const page = await get(path, { accept: BROWSER_ACCEPT });
      assert.equal(page.status, 200, path);
      assert.match(page.headers.get('content-type')!, /^text\/html/);
      assert.ok(page.body.includes('This is the address of a form'), page.body);
    }
    const json = await get(form.id, { accept: JSON_ACCEPT });
    assert.equal(json.status, 200);
    assert.equal(json.body.formId, form.id);
    assert.match(json.body.detail, /receives the submissions of a form/);
    const head = await get(`${form.id}?${query(CONTACT)}`, { accept: JSON_ACCEPT }, 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(head.body, null);
    assert.equal((await storedRows(app, form.id)).length, 0, 'neither a bare GET nor a HEAD submits');
    assertProblem(app, await get('aaaaaaaaaaaaaaaaaaaa', { accept: JSON_ACCEPT }), 'not_found');
    assertProblem(app, await get(`aaaaaaaaaaaaaaaaaaaa?${query(CONTACT)}`, { accept: JSON_ACCEPT }), 'not_found');
  });

  it('lets a GET redirect only back to the site in Referer or into the form’s list: no open redirector', async () => {
    const open = await createForm(app, account);
    const back = await get(`${open.id}?${query({ ...CONTACT, _redirect: `${SITE}/thanks` })}`, { referer: `${SITE}/contact` });
    assert.equal(back.headers.get('location'), `${SITE}/thanks`);
    // a link in an email (no Referer), or a page of another site: the thank-you page, the submission kept
    for (const headers of [{}, { referer: `${EVIL}/` }] as Record<string, string>[]) {
      const elsewhere = await get(`${open.id}?${query({ ...CONTACT, _redirect: `${SITE}/thanks` })}`, headers);
      assert.equal(elsewhere.status, 303);
      assert.match(elsewhere.headers.get('location')!, new RegExp(`^${app.submitUrl}/${open.id}/thanks`), JSON.stringify(headers));
    }
    const failed = await get(`${open.id}?${query({ message: '', _error: `${EVIL}/` })}`, { accept: BROWSER_ACCEPT });
    assert.equal(failed.status, 400, 'the error page, not the other site');
    assert.equal(failed.headers.get('location'), null);
    assert.equal((await storedRows(app, open.id)).length, 3);

    const listed = await createForm(app, account, { allowedOrigins: [SITE, 'https://www.shop.example.com'] });
    const intoList = await get(`${listed.id}?${query({ ...CONTACT, _redirect: 'https://www.shop.example.com/thanks' })}`, { referer: `${SITE}/contact` });
    assert.equal(intoList.headers.get('location'), 'https://www.shop.example.com/thanks');
    assertProblem(app, await get(`${listed.id}?${query(CONTACT)}`, { accept: JSON_ACCEPT }), 'origin_not_allowed');
  });

  it('echoes a GET’s fields flat, and explains any submission on request', async () => {
    const echo = await get(`echo?${query({ message: 'Hello', 'car.color': 'red', _redirect: `${SITE}/` })}`, { accept: BROWSER_ACCEPT });
    assert.equal(echo.status, 200);
    assert.deepEqual(echo.body, { message: 'Hello', car: { color: 'red' } }, 'the hosted echo’s shape: the fields as stored');
    assert.deepEqual((await get('echo')).body, {});
    const explained = await get(`echo?${query({ message: 'Hello', _redirect: `${SITE}/` })}`, { 'x-formgate-explain': '1' });
    assert.deepEqual(explained.body, { data: { message: 'Hello' }, controls: { _redirect: `${SITE}/` }, captchaFields: [], submitter: null });
    // the React hook's test: a JSON POST to /echo resolves with the payload itself
    const hook = await post(app, 'echo', { message: 'Hello, World!' }, { as: 'json', accept: JSON_ACCEPT });
    assert.deepEqual(hook.body, { message: 'Hello, World!' });
  });

  it('names GET in the preflight’s methods', async () => {
    const form = await createForm(app, account);
    const preflight = await request('OPTIONS', `${app.submitUrl}/${form.id}`, null, { origin: SITE, 'access-control-request-method': 'GET' });
    assert.equal(preflight.status, 204);
    assert.match(preflight.headers.get('access-control-allow-methods')!, /\bGET\b/);
  });
});

describe(`submit surface: an unusable control is logged, the submission kept (${TEST_DIALECT})`, () => {
  it('logs "control field ignored" with the form, the control, its value (clipped) and why', async () => {
    const database = await createTestDatabase();
    const app = await startApp({}, { database });
    // a second instance of the installation, whose log this test reads
    const ctx = await openContext(testConfig(database));
    const lines: Record<string, unknown>[] = [];
    const surfaces = await listen(ctx, pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) }), {
      publicUrl: false,
      submitUrl: false,
    });
    try {
      const form = await createForm(app, await createAccount(app));
      const body = new URLSearchParams({ ...CONTACT, _redirect: 'javascript:alert(1)' }).toString();
      const answer = await request('POST', `${ctx.config.submitUrl}/${form.id}`, body, { 'content-type': 'application/x-www-form-urlencoded' });
      assert.equal(answer.status, 303);
      const linkBack = await request('GET', `${ctx.config.submitUrl}/${form.id}?${new URLSearchParams({ ...CONTACT, _redirect: `${EVIL}/` })}`, null, {});
      assert.equal(linkBack.status, 303);
      const ignored = lines.filter((line) => line.msg === 'control field ignored');
      assert.deepEqual(
        ignored.map(({ formId, control, value, reason }) => ({ formId, control, value, reason })),
        [
          { formId: form.id, control: '_redirect', value: 'javascript:alert(1)', reason: 'not an absolute http or https URL' },
          {
            formId: form.id,
            control: '_redirect',
            value: `${EVIL}/`,
            reason: 'a GET submission redirects only back to the site it came from (Referer) or to one of the form’s allowed origins',
          },
        ],
      );
      assert.equal((await storedRows(app, form.id)).length, 2);
    } finally {
      await surfaces.close();
      await ctx.close();
      await app.close();
      await database.drop();
    }
  });
});
