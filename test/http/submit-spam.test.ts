import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { assertProblem } from '../helpers/problems.js';
import { connectTestRedis, TEST_REDIS_URL } from '../helpers/redis.js';
import { JSON_ACCEPT, listed, post, postJson, storedRows } from '../helpers/submit.js';

const corpus = (name: string): Record<string, unknown>[] =>
  JSON.parse(fs.readFileSync(new URL(`../fixtures/spam-corpus/${name}.json`, import.meta.url), 'utf8'));
const CONTACT = { name: 'Alan Turing', email: 'alan@example.com', message: 'Is the meeting room free on Thursday afternoon?' };

describe('submit surface: spam protection', () => {
  let app: TestApp;
  let account: Account;
  before(async () => {
    app = await startApp();
    account = await createAccount(app);
  });
  after(() => app.close());

  async function drops(formId: string): Promise<number> {
    const row = await app.ctx.database.db.selectFrom('forms').select('honeypotDrops').where('id', '=', formId).executeTakeFirstOrThrow();
    return Number(row.honeypotDrops);
  }

  describe('honeypots (step 2)', () => {
    it('drops a submission whose _honeypot or _gotcha is filled: success shown, nothing stored, the drop counted', async () => {
      const form = await createForm(app, account);
      const json = await postJson(app, form.id, { ...CONTACT, _gotcha: 'http://spam.example' });
      assert.equal(json.status, 200);
      assert.deepEqual(Object.keys(json.body).sort(), ['createdAt', 'data', 'formId', 'id'], 'the same shape as a stored submission');
      const redirected = await post(app, form.id, { ...CONTACT, _honeypot: 'x' });
      assert.equal(redirected.status, 303);
      assert.match(redirected.headers.get('location')!, new RegExp(`/${form.id}/thanks`));
      const toSite = await post(
        app,
        form.id,
        { ...CONTACT, _honeypot: 'x', _redirect: 'https://example.com/ok' },
        { headers: { origin: 'https://example.com' } },
      );
      assert.equal(toSite.headers.get('location'), 'https://example.com/ok');
      assert.equal((await storedRows(app, form.id)).length, 0);
      assert.equal(await drops(form.id), 3);
    });

    it("drops a submission whose form's customHoneypot field is filled, and does not store the empty trap", async () => {
      const form = await createForm(app, account, { customHoneypot: 'website' });
      assert.equal((await postJson(app, form.id, { ...CONTACT, website: 'https://seo.example' })).status, 200);
      assert.equal((await storedRows(app, form.id)).length, 0);
      assert.equal(await drops(form.id), 1);
      const person = await postJson(app, form.id, { ...CONTACT, website: '' });
      assert.equal(person.status, 200);
      assert.deepEqual(person.body.data, CONTACT);
      assert.deepEqual(
        (await storedRows(app, form.id)).map((r) => r.data),
        [CONTACT],
      );
    });

    it('drops a submission whose trap is filled in any shape: brackets, dots, repeated, a JSON object or array', async () => {
      const form = await createForm(app, account, { customHoneypot: 'website' });
      const formPosts: [string, string][][] = [
        [['_gotcha[]', 'x']],
        [['_gotcha.a', 'x']],
        [
          ['_gotcha', ''],
          ['_gotcha', 'x'],
        ],
        [['_honeypot[a][b]', 'x']],
        [['website[]', 'x']],
        [
          ['website', ''],
          ['website', 'x'],
        ],
        [['website[99999]', 'x']],
        [
          ['website', 'a'],
          ['website[b]', 'c'],
        ],
      ];
      for (const pairs of formPosts) {
        for (const as of ['urlencoded', 'multipart'] as const) {
          const answer = await post(app, form.id, [...Object.entries(CONTACT), ...pairs], { as, accept: JSON_ACCEPT });
          assert.equal(answer.status, 200, `${as} ${JSON.stringify(pairs)}: ${JSON.stringify(answer.body)}`);
        }
      }
      const jsonBodies = [
        { _gotcha: ['x'] },
        { _gotcha: { a: 'x' } },
        { _honeypot: ['', { a: 1 }] },
        { _honeypot: true },
        { website: { a: 'x' } },
        { website: ['', 'x'] },
        { 'website.a': 'x' },
      ];
      for (const trap of jsonBodies) assert.equal((await postJson(app, form.id, { ...CONTACT, ...trap })).status, 200, JSON.stringify(trap));
      assert.deepEqual(await storedRows(app, form.id), [], 'nothing stored');
      assert.equal(await drops(form.id), formPosts.length * 2 + jsonBodies.length);
      // blank traps in those shapes are no catch, and the form's own trap is not stored in any of them
      // (its own words and address: the spam filter's repeat signal must not count it with the others)
      const words = { ...CONTACT, message: 'Could the trap test have a word of its own, please?' };
      const person = await post(app, form.id, [...Object.entries(words), ['_gotcha[]', ''], ['_honeypot.a', ' '], ['website[]', ''], ['website[x]', '']], {
        accept: JSON_ACCEPT,
        localAddress: '127.61.0.1',
      });
      assert.equal(person.status, 200);
      assert.deepEqual(
        (await storedRows(app, form.id)).map((r) => [r.status, r.data]),
        [['accepted', words]],
      );
    });

    it('lets an empty built-in honeypot through', async () => {
      const form = await createForm(app, account);
      assert.equal((await postJson(app, form.id, { ...CONTACT, _gotcha: '', _honeypot: '' })).status, 200);
      assert.equal((await storedRows(app, form.id))[0]!.status, 'accepted');
    });
  });

  describe('spam words (step 4) and quarantine', () => {
    it('quarantines a submission with a custom spam word (whole word, any case): stored as spam, never listed, DELETE is 409', async () => {
      const form = await createForm(app, account, { customSpamWords: 'casino, crypto\nfree money' });
      const spam = await postJson(app, form.id, { ...CONTACT, message: 'Get FREE   money at our Crypto site' });
      assert.equal(spam.status, 200, 'the sender is not told');
      const ham = await postJson(app, form.id, { ...CONTACT, message: 'I live in Essex and love cryptography.' });
      assert.equal(ham.status, 200);
      assert.deepEqual(
        (await storedRows(app, form.id)).map((r) => r.status),
        ['spam', 'accepted'],
      );
      assert.deepEqual(
        (await listed(app, account.token, form.id)).map((s) => s.id),
        [ham.body.id],
      );
      const inWorkspace = await app.api('GET', `/workspaces/${account.workspaceId}/submissions?search=crypto`, { token: account.token });
      assert.deepEqual(
        inWorkspace.body.data.map((s: any) => s.id),
        [ham.body.id],
        'search never finds spam',
      );
      assertProblem(app, await app.api('DELETE', `/submissions/${spam.body.id}`, { token: account.token }), 'conflict');
      assert.equal((await storedRows(app, form.id)).length, 2, 'quarantined spam stays until it expires');
    });

    it('purges quarantined spam after the retention period, and only spam', async () => {
      const form = await createForm(app, account, { customSpamWords: 'casino' });
      await postJson(app, form.id, { message: 'casino night' });
      await postJson(app, form.id, CONTACT, { localAddress: '127.0.6.1' });
      const retention = app.ctx.config.spamRetentionMs;
      assert.equal(retention, 30 * 86_400_000, 'kept 30 days by default');
      assert.equal(await app.ctx.submissions.purgeExpiredSpam(retention, Date.now() + retention - 60_000), 0, 'not before its time');
      assert.ok((await app.ctx.submissions.purgeExpiredSpam(retention, Date.now() + retention + 60_000)) >= 1);
      assert.deepEqual(
        (await storedRows(app, form.id)).map((r) => r.status),
        ['accepted'],
      );
    });
  });

  describe('automatic filter (step 5)', () => {
    it('quarantines the spam of the corpus and lets its ham through (sampled; the unit tests run all of it)', async () => {
      const form = await createForm(app, account);
      const spam = corpus('spam').slice(0, 8);
      const ham = corpus('ham').slice(0, 8);
      // each from a visitor address of its own, so the repeat signal plays no part
      let visitor = 10;
      for (const fields of [...spam, ...ham]) {
        const answer = await post(app, form.id, fields, { as: 'json', accept: JSON_ACCEPT, localAddress: `127.0.3.${visitor++}` });
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
      }
      const statuses = (await storedRows(app, form.id)).map((r) => r.status);
      assert.deepEqual(statuses, [...spam.map(() => 'spam'), ...ham.map(() => 'accepted')]);
    });

    it('quarantines the same content posted again and again from one address', async () => {
      const form = await createForm(app, account);
      const from = (address: string) => post(app, form.id, CONTACT, { as: 'json', accept: JSON_ACCEPT, localAddress: address });
      for (let i = 0; i < 4; i++) assert.equal((await from('127.0.4.1')).status, 200);
      assert.equal((await from('127.0.4.2')).status, 200);
      const statuses = (await storedRows(app, form.id)).map((r) => r.status);
      assert.equal(statuses[0], 'accepted');
      assert.equal(statuses[3], 'spam', 'the repeated submission is caught');
      assert.equal(statuses[4], 'accepted', 'another visitor sending the same words is not');
    });

    it('counts the repeats that reach several instances together when they share Redis', async (t) => {
      const redis = await connectTestRedis(t);
      if (!redis) return;
      const visitor = `127.${randomInt(1, 255)}.${randomInt(1, 255)}.${randomInt(2, 255)}`;
      const dropKeys = async () => {
        const keys = await redis.keys(`formgate:repeat:${visitor} *`);
        if (keys.length > 0) await redis.del(...keys);
      };
      await dropKeys();
      const [a, b] = [await startApp({ redisUrl: TEST_REDIS_URL }), await startApp({ redisUrl: TEST_REDIS_URL })];
      try {
        const [onA, onB] = [await createForm(a, await createAccount(a)), await createForm(b, await createAccount(b))];
        const send = (on: TestApp, formId: string) => post(on, formId, CONTACT, { as: 'json', accept: JSON_ACCEPT, localAddress: visitor });
        assert.equal((await send(a, onA.id)).status, 200);
        assert.equal((await send(b, onB.id)).status, 200);
        assert.equal((await send(a, onA.id)).status, 200);
        assert.deepEqual(
          (await storedRows(a, onA.id)).map((r) => r.status),
          ['accepted', 'spam'],
          'the third, though A saw only two',
        );
        assert.deepEqual(
          (await storedRows(b, onB.id)).map((r) => r.status),
          ['accepted'],
        );
      } finally {
        await Promise.allSettled([a.close(), b.close()]);
        await dropKeys().catch(() => undefined);
        redis.disconnect();
      }
    });
  });
});
