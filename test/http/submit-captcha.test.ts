import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ThirdPartyCaptcha } from '../../src/domain/captcha-providers.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { CAPTCHA_SECRET, CAPTCHA_TOKEN, startCaptchaProvider, type CaptchaProvider } from '../helpers/captcha-provider.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { assertProblem } from '../helpers/problems.js';
import { postJson, post, storedRows, JSON_ACCEPT } from '../helpers/submit.js';

const FIELD: Record<ThirdPartyCaptcha, string> = {
  BOTPOISON: '_botpoison',
  GOOGLE_RECAPTCHA_V2: 'g-recaptcha-response',
  HCAPTCHA: 'h-captcha-response',
  TURNSTILE: 'cf-turnstile-response',
};
const CONTACT = { name: 'Grace Hopper', email: 'grace@example.com', message: 'Hello, I found a moth in the relay.' };
// Visitors of their own: each test posts from a loopback address the provider must be told.
const VISITOR = '127.0.0.23';

describe('submit surface: captcha providers (step 3)', () => {
  let app: TestApp;
  let provider: CaptchaProvider;
  let account: Account;
  before(async () => {
    provider = await startCaptchaProvider();
    app = await startApp(provider.env);
    account = await createAccount(app);
  });
  after(async () => {
    await app.close();
    await provider.close();
  });

  async function protectedForm(kind: ThirdPartyCaptcha) {
    const form = await createForm(app, account);
    await app.ctx.forms.setSecret(form.id, kind, CAPTCHA_SECRET);
    const patched = await app.api('PATCH', `/forms/${form.id}`, { token: account.token, body: { spamProtection: kind } });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    return form;
  }

  for (const kind of Object.keys(FIELD) as ThirdPartyCaptcha[]) {
    describe(kind, () => {
      it('accepts a submission whose answer verifies with the form secret, the token and (where taken) the visitor IP', async () => {
        provider.reset();
        provider.expect(kind, { secret: CAPTCHA_SECRET, token: CAPTCHA_TOKEN, ...(kind === 'BOTPOISON' ? {} : { ip: VISITOR }) });
        const form = await protectedForm(kind);
        const answer = await post(app, form.id, { ...CONTACT, [FIELD[kind]]: CAPTCHA_TOKEN }, { accept: JSON_ACCEPT, localAddress: VISITOR });
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        assert.deepEqual(answer.body.data, CONTACT, 'the captcha answer is not stored');
        const [seen, ...more] = provider.requestsFor(kind);
        assert.equal(more.length, 0, 'one verification');
        assert.equal(seen!.secret, CAPTCHA_SECRET);
        assert.equal(seen!.token, CAPTCHA_TOKEN);
        assert.equal(seen!.ip, kind === 'BOTPOISON' ? undefined : VISITOR);
        assert.equal((await storedRows(app, form.id)).length, 1);
      });

      it('refuses a missing answer with 400 captcha_failed without asking the provider, and stores nothing', async () => {
        provider.reset();
        const form = await protectedForm(kind);
        const answer = await postJson(app, form.id, CONTACT);
        assertProblem(app, answer, 'captcha_failed');
        assert.deepEqual(answer.body.errors, [`${FIELD[kind]}: is required`]);
        assert.equal(provider.requestsFor(kind).length, 0);
        assert.equal((await storedRows(app, form.id)).length, 0);
      });

      it('refuses an answer the provider rejects with 400 captcha_failed, and stores nothing', async () => {
        provider.reset();
        provider.expect(kind, { secret: CAPTCHA_SECRET, token: CAPTCHA_TOKEN });
        const form = await protectedForm(kind);
        const answer = await postJson(app, form.id, { ...CONTACT, [FIELD[kind]]: 'forged-token' });
        assertProblem(app, answer, 'captcha_failed');
        assert.deepEqual(answer.body.errors, [`${FIELD[kind]}: did not verify`]);
        assert.equal(provider.requestsFor(kind)[0]!.token, 'forged-token');
        assert.equal((await storedRows(app, form.id)).length, 0);
      });

      it('refuses with 503 upstream_unavailable and Retry-After when the provider fails, and stores nothing', async () => {
        provider.reset();
        provider.expect(kind, { secret: CAPTCHA_SECRET, token: CAPTCHA_TOKEN });
        provider.setMode('error', kind);
        const form = await protectedForm(kind);
        const answer = await postJson(app, form.id, { ...CONTACT, [FIELD[kind]]: CAPTCHA_TOKEN });
        assertProblem(app, answer, 'upstream_unavailable');
        assert.match(answer.headers.get('retry-after') ?? '', /^\d+$/);
        assert.equal((await storedRows(app, form.id)).length, 0);
        provider.reset();
        // retrying once the provider is back works
        assert.equal((await postJson(app, form.id, { ...CONTACT, [FIELD[kind]]: CAPTCHA_TOKEN })).status, 200);
      });
    });
  }

  it('asks for no captcha when spamProtection is null, even if a secret is stored', async () => {
    provider.reset();
    const form = await createForm(app, account);
    await app.ctx.forms.setSecret(form.id, 'HCAPTCHA', CAPTCHA_SECRET);
    assert.equal((await postJson(app, form.id, CONTACT)).status, 200);
    assert.equal(provider.requests.length, 0);
  });

  it('applies the steps in order: a filled honeypot is dropped before any captcha check; the captcha comes before spam words', async () => {
    provider.reset();
    const form = await protectedForm('TURNSTILE');
    await app.api('PATCH', `/forms/${form.id}`, { token: account.token, body: { customSpamWords: 'casino' } });
    const bot = await postJson(app, form.id, { ...CONTACT, _gotcha: 'filled' });
    assert.equal(bot.status, 200, 'the bot sees success');
    assert.equal(provider.requests.length, 0, 'and costs no call to the provider');
    assertProblem(app, await postJson(app, form.id, { ...CONTACT, message: 'casino' }), 'captcha_failed');
    assert.equal((await storedRows(app, form.id)).length, 0);
  });
});
