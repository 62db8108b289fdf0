import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, describe, it } from 'node:test';
import type { ThirdPartyCaptcha } from '../../src/domain/captcha-providers.js';
import { captchaFieldName, MAX_CAPTCHA_TOKEN_LENGTH, verifyCaptcha, type CaptchaOutcome } from '../../src/spam/captcha.js';
import { DEFAULT_CAPTCHA_VERIFY_URLS } from '../../src/domain/captcha-providers.js';
import { startCaptchaProvider, type CaptchaProvider } from '../helpers/captcha-provider.js';

const SECRET = 'sk-right';
const TOKEN = 'token-right';
const IP = '203.0.113.7';

const FIELDS: Record<ThirdPartyCaptcha, string> = {
  BOTPOISON: '_botpoison',
  GOOGLE_RECAPTCHA_V2: 'g-recaptcha-response',
  HCAPTCHA: 'h-captcha-response',
  TURNSTILE: 'cf-turnstile-response',
};
const PROVIDERS = Object.keys(FIELDS) as ThirdPartyCaptcha[];

// NOTE: every assert.ok has a message: without one, a failure makes node parse the transpiled
// one-line source to quote the expression, which can take minutes.
function assertRefused(outcome: CaptchaOutcome, reason: 'missing' | 'failed' | 'unreachable', detail?: RegExp): void {
  assert.equal(outcome.ok, false, `expected ${reason}, got ok`);
  if (outcome.ok) return;
  assert.equal(outcome.reason, reason, outcome.detail);
  if (detail) assert.match(outcome.detail, detail);
}

/** A port nothing listens on: one just released by a server. */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/verify`;
}

describe('captcha field names and endpoints', () => {
  it('names the field each provider’s widget sends', () => {
    for (const provider of PROVIDERS) assert.equal(captchaFieldName(provider), FIELDS[provider]);
  });

  it('defaults to the providers’ public verify endpoints', () => {
    assert.deepEqual(DEFAULT_CAPTCHA_VERIFY_URLS, {
      BOTPOISON: 'https://api.botpoison.com/verify',
      GOOGLE_RECAPTCHA_V2: 'https://www.google.com/recaptcha/api/siteverify',
      HCAPTCHA: 'https://api.hcaptcha.com/siteverify',
      TURNSTILE: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
    });
  });
});

describe('verifyCaptcha', () => {
  let stand: CaptchaProvider;
  before(async () => {
    stand = await startCaptchaProvider({ secret: SECRET, token: TOKEN });
  });
  afterEach(() => stand.reset());
  after(() => stand.close());

  for (const provider of PROVIDERS) {
    const takesIp = provider !== 'BOTPOISON';
    const field = FIELDS[provider];

    describe(provider, () => {
      const verify = (input: { secret?: string | null; token?: string; ip?: string }, options?: { timeoutMs?: number }) =>
        verifyCaptcha(provider, { secret: SECRET, token: TOKEN, ip: IP, ...input }, stand.urls, options);

      it(`accepts the right answer; the provider saw the secret, the token${takesIp ? ' and the visitor’s address' : ''}`, async () => {
        assert.deepEqual(await verify({}), { ok: true });
        assert.equal(stand.requests.length, 1);
        const [seen] = stand.requests;
        assert.equal(seen!.provider, provider);
        assert.equal(seen!.method, 'POST');
        assert.equal(seen!.secret, SECRET);
        assert.equal(seen!.token, TOKEN);
        if (takesIp) {
          assert.equal(seen!.contentType, 'application/x-www-form-urlencoded');
          assert.deepEqual(seen!.body, { secret: SECRET, response: TOKEN, remoteip: IP });
        } else {
          assert.equal(seen!.contentType, 'application/json');
          assert.deepEqual(seen!.body, { secretKey: SECRET, solution: TOKEN });
        }
      });

      if (takesIp) {
        it('sends the address the stand-in expects, and leaves remoteip out when there is none', async () => {
          stand.expect(provider, { secret: SECRET, token: TOKEN, ip: IP });
          try {
            assert.deepEqual(await verify({}), { ok: true });
            assertRefused(await verify({ ip: '198.51.100.1' }), 'failed', /remoteip-mismatch/);
            assertRefused(await verify({ ip: '' }), 'failed');
            assert.equal(Object.hasOwn(stand.requests[2]!.body, 'remoteip'), false, 'no remoteip field');
          } finally {
            stand.expect(provider, { secret: SECRET, token: TOKEN });
          }
        });
      }

      it('refuses a wrong token as failed, naming the field', async () => {
        const outcome = await verify({ token: 'token-wrong' });
        assertRefused(outcome, 'failed', new RegExp(field));
        if (takesIp) assertRefused(outcome, 'failed', /invalid-input-response/);
        assert.equal(stand.requests.length, 1);
        assert.equal(stand.requests[0]!.token, 'token-wrong');
      });

      it('refuses a wrong secret as failed', async () => {
        const outcome = await verify({ secret: 'sk-wrong' });
        assertRefused(outcome, 'failed');
        // The three siteverify providers say the key is at fault: the detail tells the owner, not the visitor, to act.
        if (takesIp) assertRefused(outcome, 'failed', /secret key \(invalid-input-secret\).*owner/);
        assert.equal(stand.requests[0]!.secret, 'sk-wrong');
      });

      it('answers missing without calling the provider when the token is absent or blank', async () => {
        for (const token of [undefined, '', '   ']) {
          const outcome = await verifyCaptcha(provider, { secret: SECRET, token, ip: IP }, stand.urls);
          assertRefused(outcome, 'missing', new RegExp(`requires a CAPTCHA \\(the ${field} field was empty\\); complete it and submit again`));
        }
        assert.equal(stand.requests.length, 0);
      });

      it('answers failed without calling the provider when the form has no secret key', async () => {
        for (const secret of [null, '', ' ']) assertRefused(await verify({ secret }), 'failed', /owner has not configured the secret key/);
        assert.equal(stand.requests.length, 0);
      });

      it('answers failed without calling the provider for an over-long token', async () => {
        assertRefused(await verify({ token: 'x'.repeat(MAX_CAPTCHA_TOKEN_LENGTH + 1) }), 'failed', /longer than/);
        assert.equal(stand.requests.length, 0);
        // The longest accepted token does reach the provider.
        assertRefused(await verify({ token: 'x'.repeat(MAX_CAPTCHA_TOKEN_LENGTH) }), 'failed');
        assert.equal(stand.requests.length, 1);
      });

      it('answers unreachable when the provider fails with 500', async () => {
        stand.setMode('error', provider);
        assertRefused(await verify({}), 'unreachable', /HTTP 500/);
        assert.equal(stand.requests.length, 1);
      });

      it('answers unreachable when the provider answers something that is not a verdict', async () => {
        stand.setMode('garbage', provider);
        assertRefused(await verify({}), 'unreachable', /not a verdict/);
      });

      it('answers unreachable when nothing listens', async () => {
        const urls = { ...stand.urls, [provider]: await closedPortUrl() };
        const outcome = await verifyCaptcha(provider, { secret: SECRET, token: TOKEN, ip: IP }, urls);
        assertRefused(outcome, 'unreachable', /could not be reached/);
        // The visitor may see the detail: it never carries the secret or the token.
        assert.ok(!outcome.ok && !outcome.detail.includes(SECRET) && !outcome.detail.includes(TOKEN), 'no secret or token in the detail');
      });

      it('answers unreachable when the provider does not answer in time', async () => {
        stand.setMode('hang', provider);
        assertRefused(await verify({}, { timeoutMs: 200 }), 'unreachable', /did not answer within 200 ms/);
        assert.equal(stand.requests.length, 1);
      });
    });
  }
});

describe('verifyCaptcha against odd answers', () => {
  let server: ReturnType<typeof createServer>;
  let url: string;
  let reply: { status: number; type: string; body: string } = { status: 200, type: 'application/json', body: '{}' };
  before(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(reply.status, { 'content-type': reply.type }).end(reply.body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const verify = () =>
    verifyCaptcha('GOOGLE_RECAPTCHA_V2', { secret: SECRET, token: TOKEN, ip: IP }, { ...DEFAULT_CAPTCHA_VERIFY_URLS, GOOGLE_RECAPTCHA_V2: url });

  it('treats an answer over 64 KB as unreachable', async () => {
    reply = { status: 200, type: 'application/json', body: JSON.stringify({ success: true, padding: 'x'.repeat(70_000) }) };
    assertRefused(await verify(), 'unreachable', /larger than 64 KB/);
  });

  it('treats 429 as unreachable (retryable), and a 4xx verdict as what it says', async () => {
    reply = { status: 429, type: 'application/json', body: '{"success":false}' };
    assertRefused(await verify(), 'unreachable', /HTTP 429/);
    reply = { status: 400, type: 'application/json', body: '{"success":false,"error-codes":["bad-request"]}' };
    assertRefused(await verify(), 'failed', /bad-request/);
    // A success claimed with an error status is not trusted.
    reply = { status: 400, type: 'application/json', body: '{"success":true}' };
    assertRefused(await verify(), 'failed');
  });

  it('keeps provider error codes short and printable in the detail', async () => {
    reply = {
      status: 200,
      type: 'application/json',
      body: JSON.stringify({ success: false, 'error-codes': ['a\u0000\nb', 'y'.repeat(500), 1, 'c', 'd', 'e', 'f'] }),
    };
    const outcome = await verify();
    assertRefused(outcome, 'failed', /\(a\?\?b, y{100}, c, d, e\)/);
  });

  it('never throws, even for a URL that is not one', async () => {
    const outcome = await verifyCaptcha('TURNSTILE', { secret: SECRET, token: TOKEN, ip: IP }, { ...DEFAULT_CAPTCHA_VERIFY_URLS, TURNSTILE: 'not a url' });
    assertRefused(outcome, 'unreachable', /an invalid address/);
  });
});
