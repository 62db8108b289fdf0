import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import type { RawEnv } from '../../src/config/env.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { DashboardClient, type PageAnswer } from '../helpers/dashboard.js';
import { assertRefusedBy } from '../helpers/problems.js';
import { createTestDatabase } from '../helpers/database.js';
import { connectTestRedis, TEST_REDIS_URL } from '../helpers/redis.js';
import { sign } from '@fastify/cookie';
import { createHash } from 'node:crypto';
import { accountKey } from '../../src/dashboard/login-limits.js';
import { RESET_LINK_LIFETIME_MS } from '../../src/services/password-resets.js';
import { hashSecret, newSecret } from '../../src/services/secrets.js';

const PASSWORD = 'the right password';
const FIFTEEN_MINUTES = /role="alert">Too many attempts; try again in 15 minutes\.</;

/** One login attempt from a fresh browser. */
async function logIn(app: TestApp, email: string, password: string): Promise<PageAnswer> {
  const client = new DashboardClient(app);
  await client.get('/login');
  const answer = await client.post('/login', { email, password });
  if (answer.status === 303) assert.ok(client.cookies.has('fg_session'));
  else assert.equal(client.cookies.has('fg_session'), false, 'no session without a login');
  return answer;
}

/** Asserts the limit's answer: 429, how long to wait, and no password checked. */
function assertLimited(answer: PageAnswer, retryAfter: string | null, what: string): void {
  assert.equal(answer.status, 429, what);
  assert.match(answer.html, FIFTEEN_MINUTES, what);
  assert.ok(Number(retryAfter) > 14 * 60 && Number(retryAfter) <= 15 * 60, `${what}: Retry-After ${retryAfter}`);
}

async function withApp(env: RawEnv, run: (app: TestApp) => Promise<void>): Promise<void> {
  const app = await startApp(env);
  try {
    await run(app);
  } finally {
    await app.close();
  }
}

/** Posts a login from a fresh browser; the answer and its Retry-After header. */
async function logInWithHeaders(app: TestApp, email: string, password: string): Promise<{ answer: PageAnswer; retryAfter: string | null }> {
  const client = new DashboardClient(app);
  await client.get('/login');
  const answer = await client.post('/login', { email, password });
  return { answer, retryAfter: answer.headers.get('retry-after') };
}

/** A browser that keeps its cookies, posting from one client address (through a trusted proxy). */
async function browserAt(app: TestApp, address: string): Promise<{ client: DashboardClient; logIn(email: string, password: string): Promise<PageAnswer> }> {
  const client = new DashboardClient(app);
  const from = { 'x-forwarded-for': address };
  await client.get('/login', from);
  return { client, logIn: (email, password) => client.post('/login', { email, password }, from) };
}

const UNKNOWN_BROWSER =
  /role="alert">Too many attempts for this account from browsers it has not logged in from; try again in 15 minutes, log in from a browser you have used before, or reset your password\.</;

describe('dashboard: login attempt limits', () => {
  it('refuses the 11th attempt after 10 failures for one account, even with the right password', async () => {
    await withApp({}, async (app) => {
      await app.ctx.users.createUser('target@example.com', PASSWORD);
      for (let i = 0; i < 10; i++) assert.equal((await logIn(app, 'target@example.com', `wrong guess ${i}`)).status, 400, `attempt ${i + 1}`);
      const { answer, retryAfter } = await logInWithHeaders(app, 'Target@Example.com', PASSWORD);
      assertLimited(answer, retryAfter, 'the 11th attempt, right password, other spelling');
      assertRefusedBy(answer, 10);
      assert.equal((await logIn(app, 'someone-else@example.com', 'any password')).status, 400, 'other accounts are not limited');
    });
  });

  it('gives an address with no account the same answer as one with an account', async () => {
    await withApp({ rateLimitLoginAccount: '2/15m' }, async (app) => {
      await app.ctx.users.createUser('known@example.com', PASSWORD);
      const answers: Record<string, { answer: PageAnswer; retryAfter: string | null }> = {};
      for (const email of ['known@example.com', 'unknown@example.com']) {
        for (let i = 0; i < 2; i++) assert.equal((await logIn(app, email, 'wrong password')).status, 400);
        answers[email] = await logInWithHeaders(app, email, PASSWORD);
        assertLimited(answers[email]!.answer, answers[email]!.retryAfter, email);
      }
      const text = (html: string) => /role="alert">([^<]*)</.exec(html)?.[1];
      assert.equal(text(answers['known@example.com']!.answer.html), text(answers['unknown@example.com']!.answer.html));
    });
  });

  it('starts the account’s count again after a successful login', async () => {
    await withApp({ rateLimitLoginAccount: '3/15m' }, async (app) => {
      await app.ctx.users.createUser('forgetful@example.com', PASSWORD);
      for (let i = 0; i < 2; i++) assert.equal((await logIn(app, 'forgetful@example.com', 'wrong password')).status, 400);
      assert.equal((await logIn(app, 'forgetful@example.com', PASSWORD)).status, 303);
      for (let i = 0; i < 3; i++) assert.equal((await logIn(app, 'forgetful@example.com', 'wrong password')).status, 400, `after the login, attempt ${i + 1}`);
      assert.equal((await logIn(app, 'forgetful@example.com', PASSWORD)).status, 429);
    });
  });

  it('limits failures from one client address across accounts, and its requests for reset links', async () => {
    await withApp({ rateLimitLoginAddress: '3/15m' }, async (app) => {
      await app.ctx.users.createUser('owner@example.com', PASSWORD);
      assert.equal((await logIn(app, 'owner@example.com', PASSWORD)).status, 303, 'a successful login does not count');
      for (let i = 0; i < 3; i++) assert.equal((await logIn(app, `spray${i}@example.com`, 'password123')).status, 400);
      const { answer, retryAfter } = await logInWithHeaders(app, 'owner@example.com', PASSWORD);
      assertLimited(answer, retryAfter, 'the 4th failure from the address');
      assertRefusedBy(answer, 3);
      const visitor = new DashboardClient(app);
      await visitor.get('/forgot-password');
      const reset = await visitor.post('/forgot-password', { email: 'owner@example.com' });
      assert.equal(reset.status, 429);
      assertRefusedBy(reset, 3);
      assert.match(reset.html, FIFTEEN_MINUTES);
      assert.equal((await app.ctx.database.db.selectFrom('passwordResets').selectAll().execute()).length, 0, 'no link was made');
    });
  });

  it('counts requests for reset links from one address', async () => {
    await withApp({ rateLimitLoginAddress: '2/15m' }, async (app) => {
      const visitor = new DashboardClient(app);
      await visitor.get('/forgot-password');
      for (let i = 0; i < 2; i++) assert.equal((await visitor.post('/forgot-password', { email: `someone${i}@example.com` })).status, 303);
      const third = await visitor.post('/forgot-password', { email: 'someone@example.com' });
      assert.equal(third.status, 429);
      assert.match(third.html, /id="field-email"[^>]*value="someone@example.com"/, 'the form keeps the address');
    });
  });

  it('shares the counts between two instances through Redis, under the installation’s prefix', async (t) => {
    const redis = await connectTestRedis(t);
    if (!redis) return;
    const prefix = `fg-test-login-${process.pid}-${randomBytes(4).toString('hex')}:`;
    const database = await createTestDatabase();
    const env = { redisUrl: TEST_REDIS_URL, redisPrefix: prefix, rateLimitLoginAccount: '3/15m' };
    const a = await startApp(env, { database });
    const b = await startApp(env, { database });
    try {
      await a.ctx.users.createUser('shared@example.com', PASSWORD);
      assert.equal((await logIn(a, 'shared@example.com', 'wrong one')).status, 400);
      assert.equal((await logIn(b, 'shared@example.com', 'wrong two')).status, 400);
      assert.equal((await logIn(a, 'shared@example.com', 'wrong three')).status, 400);
      assert.equal((await logIn(b, 'shared@example.com', PASSWORD)).status, 429, 'the other instance knows of all three');
      const keys = await redis.keys(`${prefix}*`);
      assert.ok(
        keys.some((k) => k.startsWith(`${prefix}rl-login-account:`)),
        `the account's counter is in Redis under the prefix: ${keys.join(', ')}`,
      );
      assert.ok(!keys.some((k) => k.includes('shared@example.com')), 'the key holds a hash, not the address');
      assert.ok(
        keys.some((k) => k.startsWith(`${prefix}rl-login-pair:`)),
        `the account-and-address counter is in Redis too: ${keys.join(', ')}`,
      );
      // a browser known on one instance is known on the other: its failures there count per browser, in Redis
      await a.ctx.users.createUser('roaming@example.com', PASSWORD);
      const roaming = new DashboardClient(a);
      await roaming.get('/login');
      assert.equal((await roaming.post('/login', { email: 'roaming@example.com', password: PASSWORD })).status, 303);
      const onB = new DashboardClient(b);
      for (const [name, value] of roaming.cookies) if (name === 'fg_device') onB.cookies.set(name, value);
      await onB.get('/login');
      assert.equal((await onB.post('/login', { email: 'roaming@example.com', password: 'wrong here' })).status, 400);
      assert.ok((await redis.keys(`${prefix}rl-login-device:*`)).length > 0, 'the browser’s counter is in Redis');
    } finally {
      await a.close();
      await b.close();
      await database.drop();
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
  });

  it('does not lock the owner out of a browser that has logged in before, whatever fails from elsewhere; the attacker stays limited', async () => {
    await withApp({ trustProxy: 'true', rateLimitLoginAccount: '3/15m' }, async (app) => {
      await app.ctx.users.createUser('victim@example.com', PASSWORD);
      const owner = await browserAt(app, '198.51.100.7');
      assert.equal((await owner.logIn('victim@example.com', PASSWORD)).status, 303, 'the owner logs in once: the browser is known');
      assert.ok(owner.client.cookies.has('fg_device'), 'a device cookie is set');
      await owner.client.get('/account', { 'x-forwarded-for': '198.51.100.7' });
      assert.equal((await owner.client.post('/logout', {}, { 'x-forwarded-for': '198.51.100.7' })).status, 303);
      // an attacker with a new address (and a new browser) for every guess, far past the limit
      const refusals: number[] = [];
      for (let i = 0; i < 12; i++) {
        const attacker = await browserAt(app, `203.0.113.${i + 1}`);
        const answer = await attacker.logIn('victim@example.com', `guess ${i}`);
        refusals.push(answer.status);
        if (answer.status === 429) assert.match(answer.html, UNKNOWN_BROWSER);
      }
      assert.deepEqual(refusals, [400, 400, 400, ...Array(9).fill(429)], 'the attacker is still stopped after 3 failures');
      const right = await browserAt(app, '203.0.113.99');
      assert.equal((await right.logIn('victim@example.com', PASSWORD)).status, 429, 'an unknown browser is refused even with the right password');
      // a new browser of the owner is refused too, until a reset link makes it known
      const laptop = await browserAt(app, '198.51.100.8');
      assert.match((await laptop.logIn('victim@example.com', PASSWORD)).html, UNKNOWN_BROWSER);
      const user = await app.ctx.users.requireByEmail('victim@example.com');
      const link = newSecret();
      const now = Date.now();
      await app.ctx.database.db
        .insertInto('passwordResets')
        .values({ tokenHash: hashSecret(link), userId: user.id, createdAt: now, expiresAt: now + RESET_LINK_LIFETIME_MS, usedAt: null })
        .execute();
      await laptop.client.get(`/reset-password/${link}`, { 'x-forwarded-for': '198.51.100.8' });
      const reset = await laptop.client.post(`/reset-password/${link}`, { password: 'a new password here' }, { 'x-forwarded-for': '198.51.100.8' });
      assert.equal(reset.status, 303);
      await laptop.client.get('/login', { 'x-forwarded-for': '198.51.100.8' });
      assert.equal((await laptop.logIn('victim@example.com', 'a new password here')).status, 303, 'the browser that used the link logs in');
      assert.equal((await (await browserAt(app, '203.0.113.100')).logIn('victim@example.com', 'a new password here')).status, 303);
      // more guesses from elsewhere, then the owner's first browser, from another address this time
      for (let i = 0; i < 6; i++) await (await browserAt(app, `203.0.113.${120 + i}`)).logIn('victim@example.com', `guess ${i}`);
      await owner.client.get('/login', { 'x-forwarded-for': '192.0.2.1' });
      const again = await owner.client.post('/login', { email: 'victim@example.com', password: 'a new password here' }, { 'x-forwarded-for': '192.0.2.1' });
      assert.equal(again.status, 303, `the known browser logs in: ${again.status} ${/role="alert">[^<]*/.exec(again.html)}`);
    });
  });

  it('still stops a brute force from one address, and a known browser’s own failures', async () => {
    await withApp({ trustProxy: 'true', rateLimitLoginAccount: '3/15m' }, async (app) => {
      await app.ctx.users.createUser('target@example.com', PASSWORD);
      await app.ctx.users.createUser('neighbour@example.com', PASSWORD);
      // one address, a fresh browser each time: stopped by the count for the account and this address
      for (let i = 0; i < 3; i++) assert.equal((await (await browserAt(app, '203.0.113.50')).logIn('target@example.com', `guess ${i}`)).status, 400);
      const fourth = await (await browserAt(app, '203.0.113.50')).logIn('target@example.com', PASSWORD);
      assert.equal(fourth.status, 429);
      assert.match(fourth.html, FIFTEEN_MINUTES);
      // a browser that logged in to an account has a count of its own: a stolen device cookie buys no more guesses
      const known = await browserAt(app, '198.51.100.20');
      assert.equal((await known.logIn('neighbour@example.com', PASSWORD)).status, 303);
      await known.client.get('/account', { 'x-forwarded-for': '198.51.100.20' });
      assert.equal((await known.client.post('/logout', {}, { 'x-forwarded-for': '198.51.100.20' })).status, 303);
      for (let i = 0; i < 3; i++) {
        await known.client.get('/login', { 'x-forwarded-for': '198.51.100.20' });
        assert.equal((await known.logIn('neighbour@example.com', `guess ${i}`)).status, 400);
      }
      await known.client.get('/login', { 'x-forwarded-for': '198.51.100.20' });
      const limited = await known.logIn('neighbour@example.com', PASSWORD);
      assert.equal(limited.status, 429);
      assert.match(limited.html, FIFTEEN_MINUTES);
    });
  });

  it('ignores a device cookie that is forged or names another account', async () => {
    await withApp({ trustProxy: 'true', rateLimitLoginAccount: '2/15m' }, async (app) => {
      await app.ctx.users.createUser('mallory@example.com', PASSWORD);
      await app.ctx.users.createUser('alice@example.com', PASSWORD);
      const mallory = await browserAt(app, '203.0.113.70');
      assert.equal((await mallory.logIn('mallory@example.com', PASSWORD)).status, 303);
      const signed = mallory.client.cookies.get('fg_device')!;
      // exhaust alice's count for unknown browsers from elsewhere
      for (let i = 0; i < 2; i++) await (await browserAt(app, `203.0.113.${80 + i}`)).logIn('alice@example.com', 'guess');
      // mallory's own (valid) cookie names mallory, not alice; a forged one holds no valid signature
      for (const cookie of [signed, `${signed.slice(0, -3)}abc`]) {
        const client = await browserAt(app, '203.0.113.90');
        client.client.cookies.set('fg_device', cookie);
        assert.match((await client.logIn('alice@example.com', PASSWORD)).html, UNKNOWN_BROWSER);
      }
    });
  });

  it('forgets a browser 180 days after its last login there', async () => {
    await withApp({ trustProxy: 'true', rateLimitLoginAccount: '2/15m' }, async (app) => {
      await app.ctx.users.createUser('old@example.com', PASSWORD);
      for (let i = 0; i < 2; i++) await (await browserAt(app, `203.0.113.${140 + i}`)).logIn('old@example.com', 'guess');
      // a cookie as the dashboard signs it (plugin.ts derives its key from the installation secret)
      const key = createHash('sha256').update(`formgate-dashboard-cookies:${app.ctx.secret}`).digest('base64url');
      const cookieFor = (issuedMsAgo: number) =>
        encodeURIComponent(sign(`${accountKey('old@example.com')}.AAAAAAAAAAAAAAAAAAAAAA.${Math.floor((Date.now() - issuedMsAgo) / 1000)}`, key));
      const expired = await browserAt(app, '198.51.100.30');
      expired.client.cookies.set('fg_device', cookieFor(181 * 86_400_000));
      assert.match((await expired.logIn('old@example.com', PASSWORD)).html, UNKNOWN_BROWSER, 'past 180 days: unknown');
      const recent = await browserAt(app, '198.51.100.31');
      recent.client.cookies.set('fg_device', cookieFor(179 * 86_400_000));
      assert.equal((await recent.logIn('old@example.com', PASSWORD)).status, 303, 'within 180 days: known');
    });
  });

  it('knows the browser that signed up as the new account’s', async () => {
    await withApp({ trustProxy: 'true', rateLimitLoginAccount: '2/15m' }, async (app) => {
      const founder = await browserAt(app, '198.51.100.40');
      await founder.client.get('/signup', { 'x-forwarded-for': '198.51.100.40' });
      const signedUp = await founder.client.post('/signup', { email: 'founder@example.com', password: PASSWORD }, { 'x-forwarded-for': '198.51.100.40' });
      assert.equal(signedUp.status, 303);
      for (let i = 0; i < 3; i++) await (await browserAt(app, `203.0.113.${150 + i}`)).logIn('founder@example.com', 'guess');
      await founder.client.get('/account', { 'x-forwarded-for': '198.51.100.40' });
      assert.equal((await founder.client.post('/logout', {}, { 'x-forwarded-for': '198.51.100.40' })).status, 303);
      await founder.client.get('/login', { 'x-forwarded-for': '198.51.100.40' });
      assert.equal((await founder.logIn('founder@example.com', PASSWORD)).status, 303, 'the browser that signed up gets in');
    });
  });
});
