import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { AltchaSpentChallenges } from '../../src/db/altcha-spent-challenges.js';
import { Keyring } from '../../src/keyring.js';
import { Altcha, ALTCHA_TTL_MS } from '../../src/spam/altcha.js';
import { decodeAltcha, encodeAltcha, solveAltcha } from '../helpers/altcha.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { assertProblem } from '../helpers/problems.js';
import { post, postJson, request, storedRows, JSON_ACCEPT, visitorAddresses } from '../helpers/submit.js';

const CONTACT = { name: 'Ada Lovelace', email: 'ada@example.com', message: 'About the engine.' };
const SITE = 'https://ada.example';
const visitor = visitorAddresses(147);

describe('submit surface: ALTCHA, the proof-of-work CAPTCHA Formgate runs itself', () => {
  let app: TestApp;
  let account: Account;
  before(async () => {
    app = await startApp();
    account = await createAccount(app);
  });
  after(() => app.close());

  /** A form asking for ALTCHA: no secret key is stored first. */
  async function altchaForm(settings: Record<string, unknown> = {}) {
    const form = await createForm(app, account);
    const patched = await app.api('PATCH', `/forms/${form.id}`, { token: account.token, body: { spamProtection: 'ALTCHA', ...settings } });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.spamProtection, 'ALTCHA');
    return form;
  }

  function getChallenge(query: string, headers: Record<string, string> = {}) {
    return request('GET', `${app.submitUrl}/altcha/challenge${query}`, null, { accept: '*/*', ...headers });
  }

  async function solvedFor(formId: string): Promise<string> {
    const answer = await getChallenge(`?form=${formId}`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return solveAltcha(answer.body);
  }

  describe('GET /altcha/challenge', () => {
    it('issues a signed challenge naming the form, expiring in 10 minutes, to any site (CORS) and never cached', async () => {
      const form = await altchaForm();
      const before = Math.floor(Date.now() / 1000);
      const answer = await getChallenge(`?form=${form.id}`, { origin: SITE });
      assert.equal(answer.status, 200);
      assert.equal(answer.headers.get('access-control-allow-origin'), '*');
      assert.equal(answer.headers.get('cache-control'), 'no-store');
      const { parameters, signature } = answer.body;
      assert.match(signature, /^[0-9a-f]{64}$/);
      assert.equal(parameters.algorithm, 'SHA-256');
      assert.equal(parameters.cost, 1);
      assert.deepEqual(parameters.data, { form: form.id });
      assert.ok(parameters.expiresAt >= before + ALTCHA_TTL_MS / 1000 && parameters.expiresAt <= before + ALTCHA_TTL_MS / 1000 + 2, `${parameters.expiresAt}`);
      const again = await getChallenge(`?form=${form.id}`);
      assert.notEqual(again.body.signature, signature, 'each challenge is new');
    });

    it('answers a preflight as the submit address does', async () => {
      const answer = await request('OPTIONS', `${app.submitUrl}/altcha/challenge?form=abc`, null, {
        origin: SITE,
        'access-control-request-method': 'GET',
      });
      assert.equal(answer.status, 204);
      assert.equal(answer.headers.get('access-control-allow-origin'), '*');
    });

    it('refuses a missing or malformed form id (400), an unknown form (404) and a method other than GET (405)', async () => {
      assertProblem(app, await getChallenge(''), 'validation_error', {
        errors: ['form: must be the id of the form the challenge is for (?form=FORM_ID)'],
      });
      assertProblem(app, await getChallenge('?form=..%2Fetc'), 'validation_error');
      assertProblem(app, await getChallenge('?form=aaaaaaaaaaaaaaaaaaaa'), 'not_found');
      const posted = await request('POST', `${app.submitUrl}/altcha/challenge?form=aaaaaaaaaaaaaaaaaaaa`, '', {});
      assertProblem(app, posted, 'method_not_allowed');
      assert.equal(posted.headers.get('allow'), 'GET, HEAD');
      assertProblem(app, await request('GET', `${app.submitUrl}/altcha/other`, null, {}), 'not_found');
    });

    it('issues challenges only to the sites a form with allowed origins lists, as it takes posts only from them', async () => {
      const form = await altchaForm({ allowedOrigins: [SITE] });
      assert.equal((await getChallenge(`?form=${form.id}`, { origin: SITE })).status, 200);
      assertProblem(app, await getChallenge(`?form=${form.id}`, { origin: 'https://elsewhere.example' }), 'origin_not_allowed');
    });
  });

  describe('GET /altcha/altcha.js', () => {
    it('serves the widget as a cacheable script any site may load as a module, compressed when asked, revalidated by its ETag', async () => {
      const plain = await request('GET', `${app.submitUrl}/altcha/altcha.js`, null, { origin: SITE });
      assert.equal(plain.status, 200);
      assert.equal(plain.headers.get('content-type'), 'text/javascript; charset=utf-8');
      assert.equal(plain.headers.get('access-control-allow-origin'), '*', 'a module script is fetched with CORS');
      assert.equal(plain.headers.get('cache-control'), 'public, max-age=86400');
      assert.match(plain.body, /altcha-widget/);
      const etag = plain.headers.get('etag');
      assert.match(etag ?? '', /^"[0-9a-f]{16}"$/);

      const gzipped = await new Promise<http.IncomingMessage>((resolve, reject) =>
        http.get(`${app.submitUrl}/altcha/altcha.js`, { headers: { 'accept-encoding': 'gzip' } }, resolve).on('error', reject),
      );
      assert.equal(gzipped.headers['content-encoding'], 'gzip');
      const chunks: Buffer[] = [];
      for await (const chunk of gzipped) chunks.push(chunk as Buffer);
      assert.equal(gunzipSync(Buffer.concat(chunks)).toString(), plain.body);

      const revalidated = await request('GET', `${app.submitUrl}/altcha/altcha.js`, null, { 'if-none-match': etag! });
      assert.equal(revalidated.status, 304);
      const head = await request('HEAD', `${app.submitUrl}/altcha/altcha.js`, null, {});
      assert.equal(head.status, 200);
      assert.equal(head.body, null);
    });
  });

  describe('POST /<formId> with spamProtection ALTCHA', () => {
    it('takes a solved challenge, from a form post and from JSON, and stores the submission without the altcha field', async () => {
      const form = await altchaForm();
      const urlencoded = await post(app, form.id, { ...CONTACT, altcha: await solvedFor(form.id) }, { accept: JSON_ACCEPT, ...visitor() });
      assert.equal(urlencoded.status, 200, JSON.stringify(urlencoded.body));
      assert.deepEqual(urlencoded.body.data, CONTACT);
      const json = await postJson(app, form.id, { ...CONTACT, altcha: await solvedFor(form.id) }, visitor());
      assert.equal(json.status, 200, JSON.stringify(json.body));
      const rows = await storedRows(app, form.id);
      assert.deepEqual(
        rows.map((r) => r.data),
        [CONTACT, CONTACT],
      );
    });

    it('refuses a post without an answer with 400 captcha_failed, as the other providers do, and stores nothing', async () => {
      const form = await altchaForm();
      for (const altcha of [undefined, '', '   ']) {
        const answer = await postJson(app, form.id, { ...CONTACT, ...(altcha === undefined ? {} : { altcha }) }, visitor());
        assertProblem(app, answer, 'captcha_failed', {
          detail: 'This form requires a CAPTCHA (the altcha field was empty); complete it and submit again.',
          errors: ['altcha: is required'],
        });
      }
      assert.equal((await storedRows(app, form.id)).length, 0);
    });

    it('refuses forged, wrong, over-long and garbled answers with 400 captcha_failed, and stores nothing', async () => {
      const form = await altchaForm();
      const good = decodeAltcha(await solvedFor(form.id));
      const forgedData = structuredClone(good);
      forgedData.challenge.parameters.data.form = 'bbbbbbbbbbbbbbbbbbbb';
      const forgedSignature = structuredClone(good);
      forgedSignature.challenge.signature = '0'.repeat(64);
      const wrongCounter = structuredClone(good);
      wrongCounter.solution.counter += 1;
      const wrongKey = structuredClone(good);
      wrongKey.solution.derivedKey = 'ab'.repeat(32);
      // a visitor cannot make the server work: a costly challenge is refused before any hash
      const costly = structuredClone(good);
      costly.challenge.parameters.cost = 1_000_000_000;
      const cases: [string, string, RegExp][] = [
        ['another form put in the signed challenge', encodeAltcha(forgedData), /was not issued by this server/],
        ['a made-up signature', encodeAltcha(forgedSignature), /was not issued by this server/],
        ['a counter that is not the solution', encodeAltcha(wrongCounter), /is not a solution of its challenge/],
        ['a key that is not the solution', encodeAltcha(wrongKey), /is not a solution of its challenge/],
        ['a costly challenge', encodeAltcha(costly), /is not an ALTCHA solution/],
        ['not base64 JSON', 'not-an-answer', /is not an ALTCHA solution/],
        ['JSON of another shape', encodeAltcha({ algorithm: 'SHA-256', number: 1 }), /is not an ALTCHA solution/],
        ['over 2048 characters', 'A'.repeat(2049), /is longer than 2048 characters/],
      ];
      for (const [what, altcha, detail] of cases) {
        const answer = await postJson(app, form.id, { ...CONTACT, altcha }, visitor());
        assertProblem(app, answer, 'captcha_failed', { errors: ['altcha: did not verify'] });
        assert.match(answer.body.detail, detail, what);
      }
      assert.equal((await storedRows(app, form.id)).length, 0);
      // the real answer still works: a refusal spends nothing
      assert.equal((await postJson(app, form.id, { ...CONTACT, altcha: encodeAltcha(good) }, visitor())).status, 200);
    });

    it('refuses an answer to an expired challenge', async () => {
      const form = await altchaForm();
      const stale = await app.ctx.altcha.challenge(form.id, Date.now() - ALTCHA_TTL_MS - 1000);
      const answer = await postJson(app, form.id, { ...CONTACT, altcha: solveAltcha(stale) }, visitor());
      assertProblem(app, answer, 'captcha_failed', { errors: ['altcha: did not verify'] });
      assert.match(answer.body.detail, /has expired \(a challenge must be answered within 10 minutes\)/);
      assert.equal((await storedRows(app, form.id)).length, 0);
    });

    it("refuses a challenge issued for another form, and a form's answer stays good for it", async () => {
      const form = await altchaForm();
      const other = await altchaForm();
      const altcha = await solvedFor(other.id);
      const answer = await postJson(app, form.id, { ...CONTACT, altcha }, visitor());
      assertProblem(app, answer, 'captcha_failed', { errors: ['altcha: did not verify'] });
      assert.match(answer.body.detail, /was issued for another form/);
      assert.equal((await storedRows(app, form.id)).length, 0);
      assert.equal((await postJson(app, other.id, { ...CONTACT, altcha }, visitor())).status, 200);
    });

    it('takes an answer once: sent again, one after the other or at the same time, it is refused', async () => {
      const form = await altchaForm();
      const altcha = await solvedFor(form.id);
      assert.equal((await postJson(app, form.id, { ...CONTACT, altcha }, visitor())).status, 200);
      const replayed = await postJson(app, form.id, { ...CONTACT, altcha }, visitor());
      assertProblem(app, replayed, 'captcha_failed', { errors: ['altcha: did not verify'] });
      assert.match(replayed.body.detail, /was already used for a submission/);

      const raced = await solvedFor(form.id);
      const answers = await Promise.all([1, 2, 3, 4].map(() => postJson(app, form.id, { ...CONTACT, altcha: raced }, visitor())));
      assert.deepEqual(answers.map((a) => a.status).sort(), [200, 400, 400, 400]);
      assert.equal((await storedRows(app, form.id)).length, 2);
    });

    it('is verified by every instance sharing the database and the secret, also after the secret is rotated', async () => {
      const form = await altchaForm();
      const spent = new AltchaSpentChallenges(app.ctx.database);
      const sibling = new Altcha(new Keyring(app.ctx.secret), spent);
      const issued = await solvedFor(form.id);
      assert.deepEqual(await sibling.verify(form.id, issued), { ok: true });
      // spent by the sibling: refused here
      const replayed = await postJson(app, form.id, { ...CONTACT, altcha: issued }, visitor());
      assert.match(replayed.body.detail, /was already used/);

      const rotated = new Altcha(new Keyring('a new secret', [app.ctx.secret]), spent);
      assert.deepEqual(await rotated.verify(form.id, await solvedFor(form.id)), { ok: true }, 'a challenge signed before the rotation');
      const stranger = new Altcha(new Keyring('another installation'), spent);
      const refused = await stranger.verify(form.id, await solvedFor(form.id));
      assert.equal(refused.ok, false);
      assert.match(!refused.ok ? refused.detail : '', /was not issued by this server/);
    });

    it('forgets spent challenges once expired, and only those', async () => {
      const spent = new AltchaSpentChallenges(app.ctx.database);
      const now = Date.now();
      assert.equal(await spent.spend('purge-test-old', now - 1), true);
      assert.equal(await spent.spend('purge-test-new', now + 60_000), true);
      assert.equal(await spent.spend('purge-test-new', now + 60_000), false);
      assert.ok((await spent.purgeExpired(now)) >= 1);
      const left = await app.ctx.database.db.selectFrom('altchaSpentChallenges').select('id').where('id', 'like', 'purge-test-%').execute();
      assert.deepEqual(
        left.map((r) => r.id),
        ['purge-test-new'],
      );
    });
  });
});
