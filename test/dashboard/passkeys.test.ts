import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { refOf } from '../../src/services/passkeys.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { DashboardClient, decodeEntities } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { diffDumps, dumpTables } from '../helpers/dump.js';
import { addPasskey, atLocalhost, authenticatorFor, optionsOf, passkeySignIn, signedIn } from '../helpers/passkey-client.js';

const PASSWORD = 'a long enough password';

/**
 * Passkeys over HTTP (issue 43, item 2), with a software authenticator answering as a browser would
 * (the Chromium test, passkeys-browser.test.ts, runs the real ceremony): who may add and remove
 * them, a passkey alone signing in, a replayed answer refused, and what the pages say without script.
 */
describe(`passkeys in the dashboard (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let site: TestApp;

  before(async () => {
    app = await startApp({ metrics: 'on', rateLimitLoginAddress: '100/15m' });
    site = atLocalhost(app);
  });
  after(async () => {
    await app?.close();
  });

  const secondFactorAt = async (userId: string) =>
    (await app.ctx.database.db.selectFrom('users').select('secondFactorAt').where('id', '=', userId).executeTakeFirstOrThrow()).secondFactorAt;
  const text = (html: string) => decodeEntities(html.replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ');
  /** The session's proofs 20 minutes old: "confirm it is you" is asked again. */
  const age = (userId: string) =>
    app.ctx.database.db
      .updateTable('sessions')
      .set({ createdAt: Date.now() - 20 * 60_000, secondFactorAt: Date.now() - 20 * 60_000 })
      .where('userId', '=', userId)
      .execute();

  it('adds a passkey and signs in with it alone, no address typed', async () => {
    const { user } = await app.ctx.users.createUser('solo@example.com', PASSWORD);
    const client = await signedIn(site, user.email, PASSWORD);
    const authenticator = authenticatorFor(site);
    const added = await addPasskey(client, authenticator, 'Laptop');
    assert.equal(added.status, 303, added.html.slice(0, 400));
    assert.notEqual(await secondFactorAt(user.id), null, 'the passkey is a second factor');
    assert.match(text((await client.get('/account/passkeys')).html), /Passkey “Laptop” added.*Laptop/);

    const visitor = new DashboardClient(site);
    const { answer } = await passkeySignIn(visitor, authenticator, user.id);
    assert.equal(answer.status, 303, answer.html.slice(0, 400));
    assert.equal(answer.location, '/account');
    assert.equal((await visitor.get('/account')).status, 200, 'signed in');

    const metrics = await (await fetch(`${site.publicUrl}/metrics`)).text();
    assert.match(metrics, /^formgate_passkey_sign_ins_total\{result="signed_in"\} [1-9]/m);
  });

  it('refuses an answer replayed with its ceremony’s cookie: already used, nothing changed, counted', async () => {
    const { user } = await app.ctx.users.createUser('replay@example.com', PASSWORD);
    const owner = await signedIn(site, user.email, PASSWORD);
    const authenticator = authenticatorFor(site);
    await addPasskey(owner, authenticator, 'Key');
    const visitor = new DashboardClient(site);
    await visitor.get('/login');
    const options = await optionsOf(visitor, '/login/passkey/options');
    const ceremony = visitor.cookies.get('fg_passkey')!;
    authenticator.counter++;
    const fields = { _csrf: visitor.csrf, next: '/', response: JSON.stringify(authenticator.assert(options, { userHandle: user.id })) };
    const answer = await visitor.post('/login/passkey', fields);
    assert.equal(answer.status, 303, answer.html.slice(0, 300));
    const attacker = new DashboardClient(site);
    for (const [k, v] of visitor.cookies) if (k !== 'fg_session') attacker.cookies.set(k, v);
    attacker.cookies.set('fg_passkey', ceremony);
    const before = await dumpTables(app.ctx.database);
    const replayed = await attacker.post('/login/passkey', fields);
    assert.equal(replayed.status, 400);
    assert.equal(attacker.cookies.has('fg_session'), false, 'no session');
    assert.deepEqual(diffDumps(before, await dumpTables(app.ctx.database)), []);
    assert.match(text(replayed.html), /That passkey answer was already used/);
    assert.match(await (await fetch(`${site.publicUrl}/metrics`)).text(), /^formgate_passkey_sign_ins_total\{result="replayed"\} [1-9]/m);
  });

  it('renames and removes only the account’s own passkeys: another account’s is the 404 page, nothing changed', async () => {
    const alice = (await app.ctx.users.createUser('alice@example.com', PASSWORD)).user;
    const bob = (await app.ctx.users.createUser('bob@example.com', PASSWORD)).user;
    const aliceClient = await signedIn(site, alice.email, PASSWORD);
    await addPasskey(aliceClient, authenticatorFor(site), 'Alice’s phone');
    const [alices] = await app.ctx.passkeys.list(alice.id);
    const bobClient = await signedIn(site, bob.email, PASSWORD);
    await bobClient.get('/account/passkeys');
    const before = await dumpTables(app.ctx.database);
    for (const answer of [
      await bobClient.get(`/account/passkeys/${alices!.ref}`),
      await bobClient.post(`/account/passkeys/${alices!.ref}/rename`, { name: 'Bob’s now' }),
      await bobClient.post(`/account/passkeys/${alices!.ref}/remove`, {}),
    ]) {
      assert.equal(answer.status, 404);
      assert.doesNotMatch(answer.html, /Alice/);
    }
    assert.deepEqual(diffDumps(before, await dumpTables(app.ctx.database)), []);

    const renamed = await aliceClient.post(`/account/passkeys/${alices!.ref}/rename`, { name: '  Old   phone ' });
    assert.equal(renamed.status, 303);
    assert.equal((await app.ctx.passkeys.list(alice.id))[0]!.name, 'Old phone');
    const refused = await aliceClient.post(`/account/passkeys/${alices!.ref}/rename`, { name: 'x'.repeat(61) });
    assert.equal(refused.status, 400);
    assert.match(text(refused.html), /Must be at most 60 characters/);
    const removed = await aliceClient.post(`/account/passkeys/${alices!.ref}/remove`, {});
    assert.equal(removed.status, 303, removed.html.slice(0, 300));
    assert.deepEqual(await app.ctx.passkeys.list(alice.id), []);
    assert.equal(await secondFactorAt(alice.id), null, 'no second factor left');
    const audit = await app.ctx.database.db.selectFrom('auditEvents').select('action').where('targetId', '=', alices!.ref).orderBy('at').execute();
    assert.deepEqual(
      audit.map((e) => e.action),
      ['passkey.added', 'passkey.renamed', 'passkey.removed'],
    );
  });

  it('asks to confirm it is you 15 minutes on: the password without a second factor, a passkey with one', async () => {
    const { user } = await app.ctx.users.createUser('careful@example.com', PASSWORD);
    const client = await signedIn(site, user.email, PASSWORD);
    await age(user.id);
    const page = text((await client.get('/account/passkeys')).html);
    assert.match(page, /To add a passkey, first confirm it is you with your password/);
    const asked = await client.get('/account/passkeys/registration-options', { accept: 'application/json' });
    assert.equal(asked.status, 403);
    assert.match(JSON.parse(asked.html).detail, /Confirm it is you first/);
    const wrong = await client.post('/account/passkeys/confirm/password', { currentPassword: 'not it', next: '/account/passkeys#add' });
    assert.equal(wrong.status, 400);
    assert.match(text(wrong.html), /Is not the account’s password/);
    const right = await client.post('/account/passkeys/confirm/password', { currentPassword: PASSWORD, next: '/account/passkeys#add' });
    assert.equal(right.status, 303);
    assert.equal(right.location, '/account/passkeys#add');
    const authenticator = authenticatorFor(site);
    assert.equal((await addPasskey(client, authenticator, 'Desk')).status, 303);

    // now with a second factor: the password no longer confirms, the passkey does
    await age(user.id);
    const [desk] = await app.ctx.passkeys.list(user.id);
    const stale = await client.post(`/account/passkeys/${desk!.ref}/remove`, {});
    assert.equal(stale.status, 403);
    assert.match(text(stale.html), /Confirm it is you first/);
    assert.equal((await client.post('/account/passkeys/confirm/password', { currentPassword: PASSWORD, next: '/account/passkeys' })).status, 400);
    await client.get(`/account/passkeys/${desk!.ref}`);
    const options = await optionsOf(client, '/account/passkeys/confirm/options');
    authenticator.counter++;
    const confirmed = await client.post('/account/passkeys/confirm', {
      next: `/account/passkeys/${desk!.ref}`,
      response: JSON.stringify(authenticator.assert(options)),
    });
    assert.equal(confirmed.status, 303, confirmed.html.slice(0, 300));
    assert.equal(confirmed.location, `/account/passkeys/${desk!.ref}`);
    assert.equal((await client.post(`/account/passkeys/${desk!.ref}/remove`, {})).status, 303);
  });

  it('keeps the last second factor an admin requires, and refuses a disabled account’s passkey with the login page’s words', async () => {
    const { user } = await app.ctx.users.createUser('kept@example.com', PASSWORD);
    const client = await signedIn(site, user.email, PASSWORD);
    const authenticator = authenticatorFor(site);
    await addPasskey(client, authenticator, 'Only one');
    const [only] = await app.ctx.passkeys.list(user.id);
    await app.ctx.instance.setRequireTwoFactor(true);
    try {
      const kept = await client.post(`/account/passkeys/${only!.ref}/remove`, {});
      assert.equal(kept.status, 409);
      assert.match(text(kept.html), /The installation’s admin requires a second factor/);
    } finally {
      await app.ctx.instance.setRequireTwoFactor(false);
    }
    await app.ctx.database.db.updateTable('users').set({ disabledAt: Date.now() }).where('id', '=', user.id).execute();
    const { answer } = await passkeySignIn(new DashboardClient(site), authenticator, user.id);
    assert.equal(answer.status, 403);
    assert.match(text(answer.html), /This account is disabled by the installation’s admin: it cannot log in\./);
  });

  it('says plainly that the ceremony needs script, and a form posted without its answer changes nothing', async () => {
    const { user } = await app.ctx.users.createUser('noscript@example.com', PASSWORD);
    const client = await signedIn(site, user.email, PASSWORD);
    const page = text((await client.get('/account/passkeys')).html);
    assert.match(page, /Adding a passkey needs JavaScript, which is off in this browser/);
    assert.match(text((await new DashboardClient(site).get('/login')).html), /Signing in with a passkey needs JavaScript/);
    const before = await dumpTables(app.ctx.database);
    const posted = await client.post('/account/passkeys', { name: 'No script' });
    assert.equal(posted.status, 400);
    assert.match(text(posted.html), /Passkeys need JavaScript in this browser/);
    const visitor = new DashboardClient(site);
    await visitor.get('/login');
    const signIn = await visitor.post('/login/passkey', { next: '/' });
    assert.equal(signIn.status, 400);
    assert.match(text(signIn.html), /Passkeys need JavaScript in this browser/);
    assert.deepEqual(diffDumps(before, await dumpTables(app.ctx.database)), []);
  });

  it('refers to a passkey by a short digest of its credential id in every address', async () => {
    assert.match(refOf('A'.repeat(300)), /^[A-Za-z0-9_-]{16}$/);
  });
});

describe(`passkeys and the login limits (${TEST_DIALECT})`, () => {
  it('counts refused passkey answers against the client address’s login limit', async () => {
    const app = await startApp({ rateLimitLoginAddress: '3/15m' });
    try {
      const site = atLocalhost(app);
      const { user } = await app.ctx.users.createUser('limited@example.com', PASSWORD);
      const stranger = authenticatorFor(site); // never added: each of its answers is refused
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await passkeySignIn(new DashboardClient(site), stranger, user.id)).answer.status);
      assert.deepEqual(statuses, [400, 400, 400, 429]);
    } finally {
      await app.close();
    }
  });
});
