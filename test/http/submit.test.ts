import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { assertProblem, assertValidation } from '../helpers/problems.js';
import { BROWSER_ACCEPT, JSON_ACCEPT, listed, multipartBody, post, postJson, request, storedRows } from '../helpers/submit.js';

const CONTACT = { name: 'Ada Lovelace', email: 'ada@example.com', message: 'Could you send me a quote for the analytical engine?' };
/** What a browser sends with a form posted from a page of https://example.com. */
const FROM_EXAMPLE = { headers: { origin: 'https://example.com', referer: 'https://example.com/contact' } };

describe('submit surface (4.7)', () => {
  let app: TestApp;
  let account: Account;
  let form: any;
  before(async () => {
    app = await startApp();
    account = await createAccount(app);
    form = await createForm(app, account);
  });
  after(() => app.close());

  async function freshForm(body: Record<string, unknown> = {}) {
    return createForm(app, account, body);
  }

  describe('content types', () => {
    it('takes a urlencoded post (a plain HTML form), answers 303 to the thank-you page, and stores the fields', async () => {
      const target = await freshForm();
      const answer = await post(app, target.id, CONTACT);
      assert.equal(answer.status, 303);
      const location = new URL(answer.headers.get('location')!);
      assert.equal(location.origin + location.pathname, `${app.submitUrl}/${target.id}/thanks`);
      const [stored] = await listed(app, account.token, target.id);
      assert.deepEqual(stored.data, CONTACT);
      assert.equal(stored.formId, target.id);
      assert.match(stored.createdAt, /^\d{4}-\d\d-\d\dT/);
    });

    it('answers JSON { id, formId, createdAt, data } with 200 when the request accepts JSON', async () => {
      const target = await freshForm();
      const answer = await postJson(app, target.id, CONTACT);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.deepEqual(Object.keys(answer.body).sort(), ['createdAt', 'data', 'formId', 'id']);
      assert.equal(answer.body.formId, target.id);
      assert.deepEqual(answer.body.data, CONTACT);
      const [stored] = await listed(app, account.token, target.id);
      assert.equal(stored.id, answer.body.id);
      assert.equal(stored.createdAt, answer.body.createdAt);
      // a urlencoded post asking for JSON gets JSON too
      const urlencoded = await post(app, target.id, CONTACT, { accept: JSON_ACCEPT });
      assert.equal(urlencoded.status, 200);
      assert.deepEqual(urlencoded.body.data, CONTACT);
    });

    it('stores a U+0000 in a name or value as U+FFFD, in a form post and in JSON alike (PostgreSQL cannot hold it)', async () => {
      const target = await freshForm();
      const urlencoded = await post(app, target.id, { 'na\0me': 'a\0b' }, { accept: JSON_ACCEPT });
      assert.equal(urlencoded.status, 200, JSON.stringify(urlencoded.body));
      const json = await postJson(app, target.id, { note: { deep: ['x\0'] } });
      assert.equal(json.status, 200, JSON.stringify(json.body));
      assert.deepEqual(json.body.data, { note: { deep: ['x\uFFFD'] } });
      const stored = await listed(app, account.token, target.id);
      assert.deepEqual(
        stored.map((s) => s.data),
        [{ note: { deep: ['x\uFFFD'] } }, { 'na\uFFFDme': 'a\uFFFDb' }],
      );
    });

    it('keeps the fields in the order sent, in the answer, the list and the webhook job (jsonb would sort them)', async () => {
      const target = await freshForm({ webhookUrl: 'https://hooks.example.com/formgate' });
      const fields: [string, string][] = [
        ['message', 'hi'],
        ['name', 'Ann'],
        ['zz', '1'],
        ['a', '2'],
        ['b.c', '3'],
      ];
      const answer = await post(app, target.id, fields, { accept: JSON_ACCEPT });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      const order = ['message', 'name', 'zz', 'a', 'b'];
      assert.deepEqual(Object.keys(answer.body.data), order);
      const [stored] = await listed(app, account.token, target.id);
      assert.deepEqual(Object.keys(stored.data), order);
      const job = await app.ctx.database.db
        .selectFrom('jobs')
        .select('payload')
        .where('submissionId', '=', stored.id)
        .where('kind', '=', 'webhook')
        .executeTakeFirstOrThrow();
      assert.deepEqual(Object.keys(JSON.parse(job.payload as string).fields), order);
    });

    it('takes multipart/form-data text fields', async () => {
      const target = await freshForm();
      const answer = await post(app, target.id, { ...CONTACT, topics: ['a', 'b'] }, { as: 'multipart', accept: JSON_ACCEPT });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.deepEqual(answer.body.data, { ...CONTACT, topics: ['a', 'b'] });
    });

    it('stores a multipart post that carries a file (uploads are on by default; test/http/submit-uploads.test.ts has the rest); an empty file input is no file', async () => {
      const target = await freshForm();
      const withFile = multipartBody(CONTACT, [{ name: 'cv', filename: 'cv.pdf', content: '%PDF-1.4 ...' }]);
      const stored = await request('POST', `${app.submitUrl}/${target.id}`, withFile.body, { 'content-type': withFile.contentType, accept: JSON_ACCEPT });
      assert.equal(stored.status, 200, JSON.stringify(stored.body));
      assert.equal(stored.body.data.cv.name, 'cv.pdf');
      assert.equal(stored.body.data.cv.size, 12);
      assert.equal((await storedRows(app, target.id)).length, 1);

      const emptyInput = multipartBody(CONTACT, [{ name: 'cv', filename: '', content: '' }]);
      const taken = await request('POST', `${app.submitUrl}/${target.id}`, emptyInput.body, { 'content-type': emptyInput.contentType, accept: JSON_ACCEPT });
      assert.equal(taken.status, 200, JSON.stringify(taken.body));
      assert.deepEqual(taken.body.data, CONTACT);
    });

    it('keeps every value of a repeated name as an array, and builds arrays and objects from a[0], a[] and car.color', async () => {
      const target = await freshForm();
      const answer = await post(
        app,
        target.id,
        [
          ['interests', 'design'],
          ['interests', 'code'],
          ['sizes[]', 'S'],
          ['sizes[]', 'M'],
          ['items[0]', 'first'],
          ['items[1]', 'second'],
          ['car.color', 'red'],
          ['car.doors', '5'],
        ],
        { accept: JSON_ACCEPT },
      );
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      const expected = { interests: ['design', 'code'], sizes: ['S', 'M'], items: ['first', 'second'], car: { color: 'red', doors: '5' } };
      assert.deepEqual(answer.body.data, expected);
      assert.deepEqual((await listed(app, account.token, target.id))[0].data, expected);
    });

    it('stores names and values as sent, in UTF-8', async () => {
      const target = await freshForm();
      const fields = { имя: 'Ёжик', 名前: '山田 太郎', first_name: 'Kept', 'Last-Name': 'As sent', message: 'Grüße 👋 — "quotes" & <tags>' };
      for (const as of ['urlencoded', 'multipart', 'json'] as const) {
        const answer = await post(app, target.id, fields, { as, accept: JSON_ACCEPT });
        assert.equal(answer.status, 200, `${as}: ${JSON.stringify(answer.body)}`);
        assert.deepEqual(answer.body.data, fields, as);
      }
      const rows = await storedRows(app, target.id);
      assert.equal(rows.length, 3);
      for (const row of rows) assert.deepEqual(row.data, fields);
    });

    it('takes nested JSON as sent', async () => {
      const target = await freshForm();
      const data = { name: 'A', tags: ['x', 'y'], address: { city: 'Paris', zip: '75001' }, consent: true, count: 3 };
      const answer = await postJson(app, target.id, data);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.deepEqual(answer.body.data, data);
    });

    it('keeps a JSON number a double cannot hold as the digits sent, in a string; other numbers stay numbers', async () => {
      const target = await freshForm();
      const body =
        '{"order": 12345678901234567890, "total": 12345678.123456789, "huge": 1e400, "price": 1.10, "qty": 3, "ref": "5e3", "n": 1e3, "name": "A", "name": "B"}';
      const expected = { order: '12345678901234567890', total: '12345678.123456789', huge: '1e400', price: 1.1, qty: 3, ref: '5e3', n: 1000, name: 'B' };
      const answer = await post(app, target.id, body, { as: 'raw', contentType: 'application/json', accept: JSON_ACCEPT });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.deepEqual(answer.body.data, expected);
      assert.deepEqual(Object.keys(answer.body.data), Object.keys(expected), 'a repeated key keeps its first place, as with JSON.parse');
      const [row] = await storedRows(app, target.id);
      assert.deepEqual(row!.data, expected);
      const prototype = await post(app, target.id, '{"__proto__": {"polluted": 1}, "big": 123456789012345678901}', {
        as: 'raw',
        contentType: 'application/json',
        accept: JSON_ACCEPT,
      });
      assert.equal(prototype.status, 200);
      assert.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype is changed');
      assert.equal(prototype.body.data.big, '123456789012345678901');
    });

    it('refuses an empty submission, a body of control fields only, a body it cannot read, and other content types; nothing is stored', async () => {
      const target = await freshForm();
      assertValidation(app, await post(app, target.id, {}, { accept: JSON_ACCEPT }), 'fields');
      assertValidation(app, await post(app, target.id, { _redirect: 'https://example.com/', _gotcha: '' }, { ...FROM_EXAMPLE, accept: JSON_ACCEPT }), 'fields');
      assertValidation(app, await postJson(app, target.id, {}), 'fields');
      assertValidation(app, await post(app, target.id, '{"name":', { as: 'raw', contentType: 'application/json', accept: JSON_ACCEPT }), 'body');
      assertValidation(app, await post(app, target.id, '[1,2]', { as: 'raw', contentType: 'application/json', accept: JSON_ACCEPT }), 'body');
      assertValidation(app, await post(app, target.id, 'name=x', { as: 'raw', contentType: 'text/plain', accept: JSON_ACCEPT }), 'body');
      assertValidation(app, await post(app, target.id, 'name=x', { as: 'raw', accept: JSON_ACCEPT }), 'body');
      assertValidation(app, await post(app, target.id, 'x', { as: 'raw', contentType: 'multipart/form-data', accept: JSON_ACCEPT }), 'body');
      assert.equal((await storedRows(app, target.id)).length, 0);
    });

    it('refuses a submission whose every field is blank like an empty one, in every encoding; nothing is stored', async () => {
      const target = await freshForm();
      const blank = { email: '', message: ' \r\n\t' };
      for (const as of ['urlencoded', 'multipart', 'json'] as const) {
        const answer = await post(app, target.id, blank, { as, accept: JSON_ACCEPT });
        assertValidation(app, answer, 'fields');
        assert.equal(answer.body.detail, 'The submission is empty.');
        assert.deepEqual(answer.body.errors, ['fields: every field is blank'], 'says what is wrong: not missing names');
      }
      assertValidation(
        app,
        await post(
          app,
          target.id,
          [
            ['tags[]', ''],
            ['tags[]', ' '],
            ['car.color', ''],
            ['_email.subject', 'Hello'],
          ],
          { accept: JSON_ACCEPT },
        ),
        'fields',
      );
      assertValidation(app, await postJson(app, target.id, { email: null, tags: [], car: {}, list: [[''], { a: ' ' }] }), 'fields');
      // a browser is shown the error page, as for an empty form
      assert.equal((await post(app, target.id, blank, { accept: BROWSER_ACCEPT })).status, 400);
      assert.equal((await storedRows(app, target.id)).length, 0);
      // one value is enough, a number or a boolean included
      assert.equal((await post(app, target.id, { ...blank, message: 'hi' }, { accept: JSON_ACCEPT })).status, 200);
      assert.equal((await postJson(app, target.id, { email: '', count: 0 })).status, 200);
      assert.equal((await storedRows(app, target.id)).length, 2);
    });

    it('refuses a JSON body nested thousands of levels deep with 400 validation_error before parsing, on /echo, an unknown form and a form', async () => {
      const target = await freshForm();
      const deep = `{"message": ${'['.repeat(5000)}${']'.repeat(5000)}}`;
      // the exact parser (taken for a 20-digit number) recursed too
      const deepExact = `{"order": 12345678901234567890, "message": ${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`;
      for (const path of ['echo', 'aaaaaaaaaaaaaaaaaaaa', target.id]) {
        for (const body of [deep, deepExact]) {
          const answer = await post(app, path, body, { as: 'raw', contentType: 'application/json', accept: JSON_ACCEPT });
          assertValidation(app, answer, 'fields');
          assert.deepEqual(answer.body.errors, ['fields: at most 8 levels of nesting']);
        }
      }
      // brackets inside strings are text, not nesting
      const text = await postJson(app, target.id, { message: '['.repeat(5000) });
      assert.equal(text.status, 200, JSON.stringify(text.body));
      assert.deepEqual(
        (await storedRows(app, target.id)).map((r) => r.data),
        [{ message: '['.repeat(5000) }],
      );
    });

    it('stores a lone UTF-16 surrogate in a name or value as one U+FFFD, the same on either database', async () => {
      const target = await freshForm();
      const raw = '{"message": "a\\ud800b", "n\\udc00": ["\\udfff"], "ok": "\\ud83d\\ude00", "_email": {"subject": "s\\ud800"}}';
      const answer = await post(app, target.id, raw, { as: 'raw', contentType: 'application/json', accept: JSON_ACCEPT });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      const expected = { message: 'a\uFFFDb', 'n\uFFFD': ['\uFFFD'], ok: '😀' };
      assert.deepEqual(answer.body.data, expected);
      const [row] = await storedRows(app, target.id);
      assert.deepEqual(row!.data, expected, 'read back from the database as answered');
      assert.deepEqual(row!.emailControls, { '_email.subject': 's\uFFFD' });
      const [listedRow] = await listed(app, account.token, target.id);
      assert.deepEqual(listedRow.data, expected);
      // invalid UTF-8 (what a lone surrogate would be in bytes) is decoded to U+FFFD before anything sees it
      const bytes = Buffer.from([0xed, 0xa0, 0x80]);
      const form = await post(app, target.id, `message=${encodeURIComponent('x')}%ED%A0%80`, {
        as: 'raw',
        contentType: 'application/x-www-form-urlencoded',
        accept: JSON_ACCEPT,
      });
      const multipart = await post(
        app,
        target.id,
        Buffer.concat([
          Buffer.from('--b\r\nContent-Disposition: form-data; name="message"\r\n\r\nx'),
          bytes,
          Buffer.from('\r\n--b--\r\n'),
        ]) as unknown as string,
        {
          as: 'raw',
          contentType: 'multipart/form-data; boundary=b',
          accept: JSON_ACCEPT,
        },
      );
      const rows = await storedRows(app, target.id);
      for (const [i, sent] of [form, multipart].entries()) {
        assert.equal(sent.status, 200, JSON.stringify(sent.body));
        assert.doesNotMatch(JSON.stringify(sent.body.data.message), /\\ud[89a-f]/i);
        assert.deepEqual(rows[i + 1]!.data, sent.body.data, 'stored as answered');
      }
    });

    it('drops a multipart part without a name, text or file, on /echo, an unknown form and a form', async () => {
      const target = await freshForm();
      const body = [
        '--b\r\nContent-Disposition: form-data\r\n\r\nno name\r\n',
        '--b\r\nContent-Disposition: form-data; name=""\r\n\r\nempty name\r\n',
        '--b\r\nContent-Disposition: form-data; filename="cv.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4\r\n',
        '--b\r\nContent-Type: text/plain\r\n\r\nno disposition\r\n',
        '--b\r\nContent-Disposition: form-data; name="message"\r\n\r\nhello\r\n',
        '--b--\r\n',
      ].join('');
      const send = (path: string) => post(app, path, body, { as: 'raw', contentType: 'multipart/form-data; boundary=b', accept: JSON_ACCEPT });
      const echo = await send('echo');
      assert.equal(echo.status, 200, JSON.stringify(echo.body));
      assert.deepEqual(echo.body, { message: 'hello' });
      assertProblem(app, await send('aaaaaaaaaaaaaaaaaaaa'), 'not_found');
      const stored = await send(target.id);
      assert.equal(stored.status, 200, JSON.stringify(stored.body));
      assert.deepEqual(
        (await storedRows(app, target.id)).map((r) => r.data),
        [{ message: 'hello' }],
      );
    });

    it('answers an oversized body with 413 payload_too_large, with or without Content-Length, and stores nothing', async () => {
      const target = await freshForm();
      const huge = `message=${'x'.repeat(300 * 1024)}`;
      assertProblem(
        app,
        await post(app, target.id, huge, { as: 'raw', contentType: 'application/x-www-form-urlencoded', accept: JSON_ACCEPT }),
        'payload_too_large',
      );
      const streamed = await new Promise<number>((resolve, reject) => {
        const outgoing = http.request(
          `${app.submitUrl}/${target.id}`,
          {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded', accept: JSON_ACCEPT, 'transfer-encoding': 'chunked' },
          },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        outgoing.on('error', reject);
        outgoing.write('message=');
        for (let i = 0; i < 40; i++) outgoing.write('y'.repeat(8 * 1024));
        outgoing.end();
      });
      assert.equal(streamed, 413);
      assert.equal((await storedRows(app, target.id)).length, 0);
      // the surface is still there for the next visitor
      assert.equal((await postJson(app, target.id, CONTACT)).status, 200);
    });
  });

  describe('control fields', () => {
    it('removes every underscore field from the data and keeps the email controls for the email step', async () => {
      const target = await freshForm();
      const answer = await post(
        app,
        target.id,
        {
          ...CONTACT,
          _redirect: 'https://example.com/done',
          _error: 'https://example.com/oops',
          _append: 'false',
          '_email.subject': 'New lead',
          '_email.from': 'Website',
          '_email.replyto': 'reply@example.com',
          _replyto: 'other@example.com',
          '_feedback.success.title': 'Merci',
          _honeypot: '',
          _gotcha: '',
          _anything: 'else',
          'g-recaptcha-response': 'token',
        },
        { ...FROM_EXAMPLE, accept: JSON_ACCEPT },
      );
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.deepEqual(answer.body.data, CONTACT);
      const [row] = await storedRows(app, target.id);
      assert.deepEqual(row!.data, CONTACT);
      assert.deepEqual(row!.emailControls, {
        '_email.subject': 'New lead',
        '_email.from': 'Website',
        '_email.replyto': 'reply@example.com',
        _replyto: 'other@example.com',
      });
    });

    it('takes nested control objects from JSON ({"_email": {"subject": …}})', async () => {
      const target = await freshForm();
      const answer = await postJson(app, target.id, { ...CONTACT, _email: { subject: 'Nested', replyto: 'n@example.com' } });
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.body.data, CONTACT);
      const [row] = await storedRows(app, target.id);
      assert.deepEqual(row!.emailControls, { '_email.subject': 'Nested', '_email.replyto': 'n@example.com' });
    });

    it('keeps the hosted service’s _email.template controls for the notification ({"_email": {"template": {"title": false}}})', async () => {
      const target = await freshForm();
      const answer = await postJson(app, target.id, { ...CONTACT, _email: { subject: 'Hi', template: { title: false, footer: false } } });
      assert.equal(answer.status, 200);
      const [row] = await storedRows(app, target.id);
      assert.deepEqual(row!.emailControls, { '_email.subject': 'Hi', '_email.template.title': 'false', '_email.template.footer': 'false' });
      await post(app, target.id, { ...CONTACT, '_email.template.title': 'A new lead' });
      assert.deepEqual((await storedRows(app, target.id))[1]!.emailControls, { '_email.template.title': 'A new lead' });
    });

    it('redirects to _redirect with 303, and _append adds submissionId to its query', async () => {
      const target = await freshForm();
      const plain = await post(app, target.id, { ...CONTACT, _redirect: 'https://example.com/thanks?lang=en' }, FROM_EXAMPLE);
      assert.equal(plain.status, 303);
      assert.equal(plain.headers.get('location'), 'https://example.com/thanks?lang=en');

      const appended = await post(app, target.id, { ...CONTACT, _redirect: 'https://example.com/thanks?lang=en#top', _append: 'true' }, FROM_EXAMPLE);
      assert.equal(appended.status, 303);
      const location = new URL(appended.headers.get('location')!);
      assert.equal(location.searchParams.get('lang'), 'en');
      assert.equal(location.hash, '#top');
      const rows = await storedRows(app, target.id);
      assert.equal(location.searchParams.get('submissionId'), rows.at(-1)!.id);

      const notAppended = await post(app, target.id, { ...CONTACT, _redirect: 'https://example.com/x', _append: 'false' }, FROM_EXAMPLE);
      assert.equal(notAppended.headers.get('location'), 'https://example.com/x');
    });

    it('ignores a _redirect or _error that is not an http(s) URL: the submission is kept and the visitor sees the built-in page', async () => {
      const target = await freshForm();
      for (const [name, value] of [
        ['_redirect', 'javascript:alert(1)'],
        ['_redirect', '/relative/path'],
        ['_redirect', 'ftp://example.com/'],
        ['_error', 'data:text/html,hi'],
      ]) {
        const json = await post(app, target.id, { ...CONTACT, [name!]: value! }, { ...FROM_EXAMPLE, accept: JSON_ACCEPT });
        assert.equal(json.status, 200, `${name}=${value}: ${JSON.stringify(json.body)}`);
        const page = await post(app, target.id, { ...CONTACT, [name!]: value! }, { ...FROM_EXAMPLE, accept: BROWSER_ACCEPT });
        assert.equal(page.status, 303);
        assert.match(page.headers.get('location')!, new RegExp(`^${app.submitUrl}/${target.id}/thanks`), `${name}=${value}: never followed`);
      }
      assert.equal((await storedRows(app, target.id)).length, 8, 'every submission kept');
      // a failure with an unusable _error gets the error page, not a redirect to it
      const failed = await post(app, target.id, { _error: 'javascript:alert(1)' }, { ...FROM_EXAMPLE, accept: BROWSER_ACCEPT });
      assert.equal(failed.status, 400);
      assert.equal(failed.headers.get('location'), null);
    });
  });

  describe('addresses and methods', () => {
    it('answers an unknown or deleted form with 404 not_found', async () => {
      assertProblem(app, await postJson(app, 'aaaaaaaaaaaaaaaaaaaa', CONTACT), 'not_found');
      assertProblem(app, await postJson(app, 'not-a-form', CONTACT), 'not_found');
      const doomed = await freshForm();
      assert.equal((await app.api('DELETE', `/forms/${doomed.id}`, { token: account.token })).status, 204);
      assertProblem(app, await postJson(app, doomed.id, CONTACT), 'not_found');
      assertProblem(app, await request('GET', `${app.submitUrl}/${doomed.id}/thanks`, null, {}), 'not_found');
    });

    it('answers another method on a form address with 405 and Allow: GET, HEAD, POST', async () => {
      for (const method of ['PUT', 'PATCH', 'DELETE']) {
        const answer = await request(method, `${app.submitUrl}/${form.id}`, null, {});
        assertProblem(app, answer, 'method_not_allowed');
        assert.equal(answer.headers.get('allow'), 'GET, HEAD, POST');
      }
      assert.equal((await request('POST', `${app.submitUrl}/${form.id}/thanks`, '', {})).headers.get('allow'), 'GET, HEAD');
    });

    it('lets any origin post: CORS headers on answers, preflight answered', async () => {
      const preflight = await request('OPTIONS', `${app.submitUrl}/${form.id}`, null, {
        origin: 'https://site.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      });
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
      assert.match(preflight.headers.get('access-control-allow-methods')!, /POST/);
      assert.match(preflight.headers.get('access-control-allow-headers')!, /content-type/i);
      const answer = await postJson(app, form.id, CONTACT, { headers: { origin: 'https://site.example' } });
      assert.equal(answer.status, 200);
      assert.equal(answer.headers.get('access-control-allow-origin'), '*');
      const refused = await postJson(app, form.id, {}, { headers: { origin: 'https://site.example' } });
      assert.equal(refused.headers.get('access-control-allow-origin'), '*', 'errors are readable cross-origin too');
    });

    it('echoes the parsed submission on /echo, flat, and explains it on request; stores nothing', async () => {
      const before = await app.ctx.database.db
        .selectFrom('submissions')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      const fields: [string, string][] = [
        ['name', 'Ada'],
        ['tags', 'a'],
        ['tags', 'b'],
        ['_redirect', 'https://example.com/'],
        ['email', 'ada@example.com'],
        ['cf-turnstile-response', 'tok'],
      ];
      const answer = await post(app, 'echo', fields);
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.body, { name: 'Ada', tags: ['a', 'b'], email: 'ada@example.com' }, 'the fields as they would be stored');
      const explained = await post(app, 'echo?explain', fields);
      assert.deepEqual(explained.body, {
        data: { name: 'Ada', tags: ['a', 'b'], email: 'ada@example.com' },
        controls: { _redirect: 'https://example.com/' },
        captchaFields: ['turnstile'],
        submitter: 'ada@example.com',
      });
      const after = await app.ctx.database.db
        .selectFrom('submissions')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(Number(after.n), Number(before.n));
    });

    it('counts a visitor from the request until its answer ends, or until the visitor goes away', async () => {
      const visitors = app.ctx.visitors;
      const settled = async (n: number) => {
        for (let i = 0; i < 200 && visitors.visitors !== n; i++) await new Promise((resolve) => setTimeout(resolve, 5));
        assert.equal(visitors.visitors, n);
      };
      const body = new URLSearchParams(CONTACT).toString();
      const open = () => {
        const outgoing = http.request(`${app.submitUrl}/${form.id}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body), accept: JSON_ACCEPT },
        });
        outgoing.write(body.slice(0, 10)); // the rest of the body is still to come
        return outgoing;
      };
      const answered = open();
      const status = new Promise<number>((resolve) =>
        answered.on('response', (response) => {
          response.resume();
          resolve(response.statusCode!);
        }),
      );
      await settled(1);
      answered.end(body.slice(10));
      assert.equal(await status, 200);
      await settled(0);

      const abandoned = open();
      abandoned.on('error', () => undefined);
      await settled(1);
      abandoned.destroy();
      await settled(0);
    });

    it('echoes X-Request-Id and answers /healthz', async () => {
      const answer = await postJson(app, form.id, CONTACT, { headers: { 'x-request-id': 'submit-test-1' } });
      assert.equal(answer.headers.get('x-request-id'), 'submit-test-1');
      const health = await request('GET', `${app.submitUrl}/healthz`, null, {});
      assert.equal(health.status, 200);
      assert.equal(health.body.status, 'ok');
      const { changeFeed, ...database } = health.body.checks.database;
      assert.deepEqual(database, { status: 'ok', reads: 'ok', writes: 'ok' });
      assert.equal(changeFeed !== undefined, TEST_DIALECT === 'postgres', 'the change feed said on PostgreSQL only');
    });
  });
});
