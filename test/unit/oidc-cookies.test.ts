import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import cookie from '@fastify/cookie';
import Fastify from 'fastify';
import { CONFIRMED_FOR_MS, OidcCookies } from '../../src/dashboard/oidc-cookies.js';

/** A page that says whether its session was confirmed by the provider, the session named by a header. */
async function confirmationPage() {
  const app = Fastify();
  await app.register(cookie, { secret: 'a-secret-for-the-cookies-of-this-test' });
  const cookies = new OidcCookies({ name: 'fg_session', secure: false });
  app.decorateRequest('account', null);
  app.addHook('onRequest', async (request) => {
    const session = request.headers['x-session'];
    (request as unknown as { account: unknown }).account = session ? { session: { idHash: session } } : null;
  });
  app.get('/set', async (request, reply) => {
    cookies.setConfirmed(reply, String(request.headers['x-session']));
    return 'set';
  });
  app.get('/check', async (request) => String(cookies.confirmedRecently(request)));
  return app;
}

describe('the provider’s confirmation of a signed-in person', () => {
  it('holds for the session it was made in only, and is signed', async () => {
    const app = await confirmationPage();
    const set = await app.inject({ url: '/set', headers: { 'x-session': 'mine' } });
    const value = set.cookies.find((c) => c.name === 'fg_oidc_confirmed')!;
    assert.ok(value.httpOnly);
    assert.equal(value.sameSite, 'Lax');
    assert.ok(new Date(value.expires!).getTime() <= Date.now() + CONFIRMED_FOR_MS);
    const check = (session: string, cookieValue = value.value) =>
      app.inject({ url: '/check', headers: { 'x-session': session, cookie: `fg_oidc_confirmed=${cookieValue}` } }).then((r) => r.body);
    assert.equal(await check('mine'), 'true');
    assert.equal(await check('another session'), 'false');
    const forged = encodeURIComponent(JSON.stringify({ session: 'another session', at: Date.now() }));
    assert.equal(await check('another session', forged), 'false', 'an unsigned cookie is nothing');
    await app.close();
  });
});
