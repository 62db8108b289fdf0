import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { describe, it } from 'node:test';
import type { Logger } from 'pino';
import type { RawEnv } from '../../src/config/env.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard.js';
import { collectingLogger } from '../helpers/log-lines.js';
import { createAccount, createForm } from '../helpers/fixtures.js';
import { assertProblem } from '../helpers/problems.js';
import { BROWSER_ACCEPT, JSON_ACCEPT, post, request } from '../helpers/submit.js';

// Behind nginx (`proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for`), the header is what
// the client sent followed by the address nginx saw. The proxy here is a loopback address of its own.
const freshLoopback = () => `127.${randomInt(1, 255)}.${randomInt(1, 255)}.${randomInt(2, 255)}`;
const forged = () => `${randomInt(1, 224)}.${randomInt(0, 256)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
/** A public-looking client address, new for each test so counters of other runs never interfere. */
const clientAddress = () => `198.51.${randomInt(0, 256)}.${randomInt(1, 255)}`;
/** What nginx forwards for `client` when the client itself sent an X-Forwarded-For of its own choosing. */
const forwardedFor = (client: string) => `${forged()}, ${client}`;

async function withApp(env: RawEnv, run: (app: TestApp) => Promise<void>, logger?: Logger): Promise<void> {
  const app = await startApp(env, logger ? { logger } : {});
  try {
    await run(app);
  } finally {
    await app.close();
  }
}

describe('FORMGATE_TRUST_PROXY: the client is the address the trusted proxy appended', () => {
  it('a forged X-Forwarded-For behind one hop does not escape the submit rate limit', async () => {
    await withApp({ trustProxy: 'true', rateLimitSubmit: '3/1m' }, async (app) => {
      const form = await createForm(app, await createAccount(app));
      const proxy = freshLoopback();
      const client = clientAddress();
      const send = (from: string) =>
        post(app, form.id, { message: 'hello' }, { accept: JSON_ACCEPT, localAddress: proxy, headers: { 'x-forwarded-for': forwardedFor(from) } });
      for (let i = 1; i <= 3; i++) assert.equal((await send(client)).status, 200, `submission ${i}`);
      assertProblem(app, await send(client), 'rate_limited');
      // another client behind the same proxy has a count of its own
      assert.equal((await send(clientAddress())).status, 200, 'another client through the same proxy');
    });
  });

  it('a forged X-Forwarded-For behind one hop does not escape the login limit per address, nor the reset limit', async () => {
    await withApp({ trustProxy: '1', rateLimitLoginAddress: '3/15m', rateLimitLoginAccount: '100/15m' }, async (app) => {
      // an installation with an account: before the first, /login leads to Set up Formgate
      await createAccount(app);
      const client = clientAddress();
      const headers = () => ({ 'x-forwarded-for': forwardedFor(client) });
      const logIn = async (email: string) => {
        const browser = new DashboardClient(app);
        await browser.get('/login', headers());
        return browser.post('/login', { email, password: 'a wrong guess' }, headers());
      };
      for (let i = 1; i <= 3; i++) assert.equal((await logIn(`guess${i}@example.com`)).status, 400, `attempt ${i}`);
      const refused = await logIn('guess4@example.com');
      assert.equal(refused.status, 429);
      assert.match(refused.html, /Too many attempts/);
      // a reset request from that client counts against the same limit
      const browser = new DashboardClient(app);
      await browser.get('/forgot-password', headers());
      assert.equal((await browser.post('/forgot-password', { email: 'someone@example.com' }, headers())).status, 429);
      // another client behind the same proxy is not limited
      const other = new DashboardClient(app);
      const otherHeaders = { 'x-forwarded-for': forwardedFor(clientAddress()) };
      await other.get('/login', otherHeaders);
      assert.equal((await other.post('/login', { email: 'guess5@example.com', password: 'a wrong guess' }, otherHeaders)).status, 400);
    });
  });

  it('a thank-you link is bound to the address the proxy appended: a forged one cannot bind it to a victim', async () => {
    await withApp({ trustProxy: 'true' }, async (app) => {
      const site = 'https://shop.example.com';
      const form = await createForm(app, await createAccount(app), { allowedOrigins: [site] });
      const proxy = freshLoopback();
      const attacker = clientAddress();
      const victim = clientAddress();
      // a script can claim the owner's Origin and write the victim's address first in X-Forwarded-For
      const answer = await post(
        app,
        form.id,
        { message: 'hello', '_feedback.success.title': 'Your account is suspended' },
        { accept: BROWSER_ACCEPT, localAddress: proxy, headers: { origin: site, referer: `${site}/contact`, 'x-forwarded-for': `${victim}, ${attacker}` } },
      );
      assert.equal(answer.status, 303);
      const open = async (forwardedFor: string) =>
        (await request('GET', answer.headers.get('location')!, null, { accept: BROWSER_ACCEPT, 'x-forwarded-for': forwardedFor }, proxy)).body as string;
      const seenByVictim = await open(victim);
      assert.ok(seenByVictim.includes('Thank you!') && !seenByVictim.includes('suspended'), 'the victim sees the default page');
      assert.ok((await open(`${forged()}, ${attacker}`)).includes('suspended'), 'the link is good for the address that posted');
    });
  });

  it('a forged X-Forwarded-For behind one hop does not escape the API rate limit', async () => {
    await withApp({ trustProxy: 'true', rateLimitApi: '3/1m' }, async (app) => {
      const { token } = await createAccount(app);
      const client = clientAddress();
      const me = () => app.api('GET', '/me', { token, headers: { 'x-forwarded-for': forwardedFor(client) } });
      for (let i = 1; i <= 3; i++) assert.equal((await me()).status, 200, `request ${i}`);
      assertProblem(app, await me(), 'rate_limited');
    });
  });

  it('with a list of proxies, takes X-Forwarded-For only from them, and logs the client address it used', async () => {
    const { logger, lines } = collectingLogger();
    const proxy = freshLoopback();
    await withApp(
      { trustProxy: `${proxy}, 10.0.0.0/8` },
      async (app) => {
        const client = clientAddress();
        const answer = await post(
          app,
          'echo',
          { name: 'Ada' },
          { accept: JSON_ACCEPT, localAddress: proxy, headers: { 'x-forwarded-for': `${forged()}, ${client}, 10.1.2.3`, 'x-request-id': 'through-proxy' } },
        );
        assert.equal(answer.status, 200);
        // a client that is not a listed proxy is itself the client, whatever it writes
        const direct = freshLoopback();
        await post(
          app,
          'echo',
          { name: 'Ada' },
          { accept: JSON_ACCEPT, localAddress: direct, headers: { 'x-forwarded-for': forged(), 'x-request-id': 'direct' } },
        );
        const login = await fetch(`${app.publicUrl}/login`, { headers: { 'x-forwarded-for': forwardedFor(client), 'x-request-id': 'dashboard-direct' } });
        assert.equal(login.status, 200);
        const logged = (id: string) => lines.find((line) => line.msg === 'request' && line.reqId === id);
        assert.equal(logged('through-proxy')?.ip, client);
        assert.equal(logged('direct')?.ip, direct);
        assert.equal(logged('dashboard-direct')?.ip, '127.0.0.1', 'the dashboard agrees: its test client is no listed proxy');
      },
      logger,
    );
  });
});
