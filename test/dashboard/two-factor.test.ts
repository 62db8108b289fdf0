import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { awayFromStepEdge, totpCode } from '../helpers/totp.js';
import { DashboardClient, decodeEntities } from '../helpers/dashboard.js';

const PASSWORD = 'a password for two factors';

/** The recovery codes a page shows (the code block of /account/two-factor/app's answer). */
function recoveryCodesOf(html: string): string[] {
  const block = /id="recovery-codes">([^<]*)</.exec(html);
  assert.ok(block, 'the page shows recovery codes');
  return decodeEntities(block[1]!).split('\n');
}

describe('dashboard: two-factor sign-in with an authenticator app', () => {
  let app: TestApp;

  before(async () => {
    app = await startApp({ metrics: 'on' });
  });
  after(() => app?.close());

  /** A new account logged in, with its app set up: the client, the secret and the recovery codes. */
  async function withApp(email: string): Promise<{ client: DashboardClient; secret: string; codes: string[]; userId: string }> {
    const { user } = await app.ctx.users.createUser(email, PASSWORD);
    const client = new DashboardClient(app);
    await client.enter('/login', email, PASSWORD);
    const setup = await client.get('/account/two-factor/app');
    assert.equal(setup.status, 200);
    assert.match(setup.html, /role="img" aria-label="QR code holding your new secret"><svg/, 'the QR code is drawn on the page');
    const secret = decodeEntities(/id="totp-secret">([^<]*)</.exec(setup.html)![1]!);
    const sealed = /name="setup" value="([^"]+)"/.exec(setup.html)![1]!;
    await awayFromStepEdge();
    // the step before: the code a person types a moment after reading it, and it leaves this step's code for the sign-in
    const answer = await client.post('/account/two-factor/app', { setup: decodeEntities(sealed), code: totpCode(secret, -1) });
    assert.equal(answer.status, 200, answer.html.slice(0, 400));
    assert.equal(answer.headers.get('content-encoding'), null, 'a page with secrets is never compressed');
    const codes = recoveryCodesOf(answer.html);
    return { client, secret, codes, userId: user.id };
  }

  /** Logs in with the password: the answer leads to the second step. */
  async function passwordStep(email: string, client = new DashboardClient(app)): Promise<DashboardClient> {
    await client.get('/login');
    const answer = await client.post('/login', { email, password: PASSWORD });
    assert.equal(answer.status, 303);
    assert.equal(answer.location, '/login/two-factor');
    return client;
  }

  it('sets the app up with a code it made, and gives ten recovery codes once', async () => {
    const { codes, userId } = await withApp('setup@example.com');
    assert.equal(codes.length, 10);
    assert.equal(new Set(codes).size, 10);
    for (const code of codes) assert.match(code, /^[a-z2-7]{5}-[a-z2-7]{5}$/);
    const factors = await app.ctx.twoFactor.factorsOf(userId);
    assert.deepEqual(factors, { app: true, passkeys: 0, recoveryCodesLeft: 10 });
    const user = await app.ctx.users.findById(userId);
    assert.ok(user?.secondFactorAt, 'the account has a second factor');
    assert.doesNotMatch(user.totpSecret!, /^[A-Z2-7]+$/, 'the secret is stored sealed, not as typed into the app');
    const actions = await app.ctx.database.db
      .selectFrom('auditEvents')
      .select(['action', 'via', 'details'])
      .where('actorUserId', '=', userId)
      .orderBy('at')
      .execute();
    assert.deepEqual(
      actions.map((a) => a.action),
      ['session.started', 'two_factor.app_enabled'],
      'the audit log has the sign-in and the set-up',
    );
    assert.equal(actions[1]!.via, 'dashboard');
  });

  it('refuses a wrong code at set-up, and a set-up made for another account', async () => {
    await app.ctx.users.createUser('wrong-setup@example.com', PASSWORD);
    const client = new DashboardClient(app);
    await client.enter('/login', 'wrong-setup@example.com', PASSWORD);
    const setup = await client.get('/account/two-factor/app');
    const sealed = decodeEntities(/name="setup" value="([^"]+)"/.exec(setup.html)![1]!);
    const wrong = await client.post('/account/two-factor/app', { setup: sealed, code: '000000' });
    assert.equal(wrong.status, 400);
    assert.match(wrong.html, /That code is not right/);
    assert.equal(/name="setup" value="([^"]+)"/.exec(wrong.html)![1] !== undefined, true, 'the same set-up is offered again');

    const { client: other } = await withApp('other-setup@example.com');
    const stolen = await other.post('/account/two-factor/app', { setup: sealed, code: '123456' });
    assert.equal(stolen.status, 400);
    assert.match(stolen.html, /expired or is not yours/);
  });

  it('asks the code after the password, refuses a wrong one and a replayed one, and signs in with the right one', async () => {
    const { secret } = await withApp('signin@example.com');
    const client = await passwordStep('signin@example.com');
    assert.equal((await client.get('/account')).status, 303, 'no session before the second factor');
    const step = await client.get('/login/two-factor');
    assert.equal(step.status, 200);
    assert.match(step.html, /<label for="field-code">Code from your authenticator app<\/label>/);
    const wrong = await client.post('/login/two-factor', { code: '000000' });
    assert.equal(wrong.status, 400);
    assert.match(wrong.html, /That code is not right, or it was used already/);
    await awayFromStepEdge();
    const code = totpCode(secret);
    const right = await client.post('/login/two-factor', { code });
    assert.equal(right.status, 303);
    assert.equal(right.location, '/');
    assert.equal((await client.get('/account')).status, 200, 'signed in');

    const again = await passwordStep('signin@example.com');
    const replayed = await again.post('/login/two-factor', { code });
    assert.equal(replayed.status, 400, 'a code is accepted once');
    assert.equal((await again.get('/account')).status, 303);
    const metrics = await (await fetch(`${app.publicUrl}/metrics`)).text();
    assert.match(metrics, /^formgate_sign_ins_total\{second_factor="app"\} [1-9]/m);
    assert.match(metrics, /^formgate_second_factor_refusals_total [2-9]/m, 'the wrong code and the replayed one');
  });

  it('takes each recovery code once', async () => {
    const { codes } = await withApp('recovery@example.com');
    const client = await passwordStep('recovery@example.com');
    const used = await client.post('/login/two-factor', { code: codes[0]!.toUpperCase() });
    assert.equal(used.status, 303, 'a recovery code, whatever its case');
    const again = await passwordStep('recovery@example.com');
    assert.equal((await again.post('/login/two-factor', { code: codes[0]! })).status, 400, 'used up');
    const page = await client.get('/account/two-factor');
    assert.match(page.html, /<strong>9<\/strong> unused recovery codes left/);
  });

  it('remembers a browser for 30 days when asked, until its owner forgets it', async () => {
    const { codes, client: owner } = await withApp('remember@example.com');
    const client = await passwordStep('remember@example.com');
    assert.equal((await client.post('/login/two-factor', { code: codes[1]!, remember: '1' })).status, 303);
    await client.get('/account');
    await client.post('/logout', {});
    await client.get('/login');
    const skipped = await client.post('/login', { email: 'remember@example.com', password: PASSWORD });
    assert.equal(skipped.status, 303);
    assert.equal(skipped.location, '/', 'the remembered browser skips the second step');
    assert.equal((await client.get('/account')).status, 200);

    // another browser is not remembered
    await passwordStep('remember@example.com');

    await owner.get('/account/two-factor');
    await owner.post('/account/two-factor/forget-browsers', {});
    await client.get('/account');
    await client.post('/logout', {});
    await passwordStep('remember@example.com', client);
  });

  it('refuses a pending sign-in that was not signed by the server, or that has expired', async () => {
    const client = new DashboardClient(app);
    client.cookies.set('fg_pending', encodeURIComponent(JSON.stringify({ userId: 'x', next: '/', firstFactor: 'password', expiresAt: Date.now() + 60_000 })));
    const answer = await client.get('/login/two-factor');
    assert.equal(answer.status, 303);
    assert.equal(answer.location, '/login');
    await client.get('/login');
    const post = await client.post('/login/two-factor', { code: '123456' });
    assert.equal(post.status, 303);
    assert.equal(post.location, '/login');
  });

  it('limits tries at the code apart from the password: signing in again gives no fresh guesses', async () => {
    const limited = await startApp({ rateLimitLoginAccount: '3/15m' });
    try {
      await limited.ctx.users.createUser('guess@example.com', PASSWORD);
      const helper = new DashboardClient(limited);
      await helper.enter('/login', 'guess@example.com', PASSWORD);
      const setup = await helper.get('/account/two-factor/app');
      const secret = decodeEntities(/id="totp-secret">([^<]*)</.exec(setup.html)![1]!);
      const sealed = decodeEntities(/name="setup" value="([^"]+)"/.exec(setup.html)![1]!);
      await awayFromStepEdge();
      assert.equal((await helper.post('/account/two-factor/app', { setup: sealed, code: totpCode(secret, -1) })).status, 200);
      let last = 0;
      for (let round = 0; round < 2; round++) {
        const client = new DashboardClient(limited);
        await client.get('/login');
        assert.equal((await client.post('/login', { email: 'guess@example.com', password: PASSWORD })).status, 303, 'the password is still right');
        for (let i = 0; i < 2; i++) last = (await client.post('/login/two-factor', { code: '000000' })).status;
      }
      assert.equal(last, 429, 'the fourth wrong code is refused, though the password was typed again between');
    } finally {
      await limited.close();
    }
  });

  it('turns the app off only with a code, and forgets its recovery codes', async () => {
    const { client, secret, userId, codes } = await withApp('off@example.com');
    await client.get('/account/two-factor');
    const refused = await client.post('/account/two-factor/off', { code: '000000' });
    assert.equal(refused.status, 400);
    assert.equal((await app.ctx.twoFactor.factorsOf(userId)).app, true);
    await awayFromStepEdge();
    const off = await client.post('/account/two-factor/off', { code: totpCode(secret) });
    assert.equal(off.status, 303);
    assert.deepEqual(await app.ctx.twoFactor.factorsOf(userId), { app: false, passkeys: 0, recoveryCodesLeft: 0 });
    assert.equal((await app.ctx.users.findById(userId))?.secondFactorAt, null);
    assert.equal(await app.ctx.twoFactor.verify(userId, codes[2]!), null, 'its recovery codes are gone');
    const login = new DashboardClient(app);
    await login.enter('/login', 'off@example.com', PASSWORD);
    assert.equal((await login.get('/account')).status, 200, 'the password alone signs in again');
  });

  it('makes new recovery codes with a code, and the old ones stop working', async () => {
    const { client, codes, userId } = await withApp('new-codes@example.com');
    await client.get('/account/two-factor');
    const answer = await client.post('/account/two-factor/recovery-codes', { code: codes[0]! });
    assert.equal(answer.status, 200);
    const fresh = recoveryCodesOf(answer.html);
    assert.equal(fresh.length, 10);
    assert.equal(await app.ctx.twoFactor.verify(userId, codes[1]!), null);
    assert.equal(await app.ctx.twoFactor.verify(userId, fresh[0]!), 'recovery');
  });

  it('asks the second factor again before an API token is made, unless proved in the last 15 minutes', async () => {
    const { codes, userId } = await withApp('token@example.com');
    const client = await passwordStep('token@example.com');
    assert.equal((await client.post('/login/two-factor', { code: codes[0]! })).status, 303);
    const fresh = await client.get('/account/tokens');
    assert.doesNotMatch(fresh.html, /name="code"/, 'proved a moment ago: no code asked');
    // the proof ages past 15 minutes
    await app.ctx.database.db
      .updateTable('sessions')
      .set({ secondFactorAt: Date.now() - 16 * 60_000 })
      .where('userId', '=', userId)
      .execute();
    const stale = await client.get('/account/tokens');
    assert.match(stale.html, /name="code"/);
    const refused = await client.post('/account/tokens', { name: 'ci', scopes: 'forms:read', currentPassword: PASSWORD });
    assert.equal(refused.status, 400);
    assert.match(refused.html, /Type the code your authenticator app shows now/);
    assert.equal((await app.ctx.tokens.listTokens(userId)).length, 0, 'no token made');
    const made = await client.post('/account/tokens', { name: 'ci', scopes: 'forms:read', currentPassword: PASSWORD, code: codes[1]! });
    assert.equal(made.status, 200);
    assert.equal((await app.ctx.tokens.listTokens(userId)).length, 1);
  });

  it('sends an account without a second factor to set one up when the admin requires it', async () => {
    await app.ctx.users.createUser('required@example.com', PASSWORD);
    const client = new DashboardClient(app);
    await client.enter('/login', 'required@example.com', PASSWORD);
    await app.ctx.instance.setRequireTwoFactor(true);
    try {
      for (const path of ['/', '/account', '/account/tokens']) {
        const answer = await client.get(path);
        assert.equal(answer.status, 303, path);
        assert.equal(answer.location, '/account/two-factor', path);
      }
      const page = await client.get('/account/two-factor');
      assert.equal(page.status, 200);
      assert.match(page.html, /The installation’s admin requires a second factor: set one up/);
      assert.equal((await client.get('/account/two-factor/app')).status, 200, 'the set-up is reachable');
    } finally {
      await app.ctx.instance.setRequireTwoFactor(false);
    }
    assert.equal((await client.get('/account')).status, 200);
  });

  it('lets a workspace owner require a second factor of the members, and refuses turning the last one off', async () => {
    const { user: owner, workspace } = await app.ctx.users.createUser('ws-owner@example.com', PASSWORD);
    const ownerClient = new DashboardClient(app);
    await ownerClient.enter('/login', 'ws-owner@example.com', PASSWORD);
    const settings = await ownerClient.get(`/w/${workspace!.id}/settings`);
    assert.match(settings.html, /Require a second factor of every member/);
    const saved = await ownerClient.post(`/w/${workspace!.id}/settings/two-factor`, { required: '1' });
    assert.equal(saved.status, 303);
    assert.equal((await ownerClient.get(`/w/${workspace!.id}`)).location, '/account/two-factor', 'the owner has none either: set one up first');
    assert.equal((await app.ctx.workspaces.getForMember(owner.id, workspace!.id)).requireTwoFactor, 1);

    const { client: withFactor, secret, userId } = await withApp('ws-member@example.com');
    await app.ctx.database.db.insertInto('workspaceMembers').values({ workspaceId: workspace!.id, userId, role: 'member', createdAt: Date.now() }).execute();
    assert.equal((await withFactor.get('/account')).status, 200, 'a member with a factor goes on');
    await withFactor.get('/account/two-factor');
    await awayFromStepEdge();
    const off = await withFactor.post('/account/two-factor/off', { code: totpCode(secret) });
    assert.equal(off.status, 409);
    assert.match(off.html, /The workspace “[^”]+” requires a second factor: add a passkey before you turn the app off/);
    assert.equal((await app.ctx.twoFactor.factorsOf(userId)).app, true);
    await app.ctx.team.setRequireTwoFactor(owner.id, workspace!.id, false);
  });

  it('lets the instance admin reset the second factors of someone who lost them', async () => {
    const fresh = await startApp();
    try {
      await fresh.ctx.users.createUser('admin@example.com', PASSWORD);
      const { user } = await fresh.ctx.users.createUser('lost@example.com', PASSWORD);
      const setup = await fresh.ctx.twoFactor.startAppSetup(user.id, user.email);
      await awayFromStepEdge();
      await fresh.ctx.twoFactor.enableApp(user.id, setup.sealedSecret, totpCode(setup.secretText));
      const admin = new DashboardClient(fresh);
      await admin.enter('/login', 'admin@example.com', PASSWORD);
      const page = await admin.get(`/admin/accounts/${user.id}`);
      assert.match(page.html, /It signs in with an authenticator app\./);
      const reset = await admin.post(`/admin/accounts/${user.id}/reset-two-factor`, {});
      assert.equal(reset.status, 303);
      assert.equal((await fresh.ctx.users.findById(user.id))?.secondFactorAt, null);
      assert.match((await admin.get(`/admin/accounts/${user.id}`)).html, /It has no second factor/);
      const login = new DashboardClient(fresh);
      await login.enter('/login', 'lost@example.com', PASSWORD);
      assert.equal((await login.get('/account')).status, 200, 'the password alone signs in');

      const member = new DashboardClient(fresh);
      await member.enter('/login', 'lost@example.com', PASSWORD);
      await member.get('/account');
      const refused = await member.post(`/admin/accounts/${user.id}/reset-two-factor`, {});
      assert.notEqual(refused.status, 303, 'only the admin may');
    } finally {
      await fresh.close();
    }
  });

  it('lists the account’s sessions and signs one out, never another account’s', async () => {
    const email = 'sessions@example.com';
    await app.ctx.users.createUser(email, PASSWORD);
    const here = new DashboardClient(app);
    const there = new DashboardClient(app);
    await here.enter('/login', email, PASSWORD);
    await there.get('/login');
    await there.post(
      '/login',
      { email, password: PASSWORD },
      { 'user-agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0' },
    );
    const page = await here.get('/account/sessions');
    assert.equal(page.status, 200);
    assert.match(page.html, /Firefox on Windows/);
    assert.match(page.html, /This browser/);
    const otherHash = [...page.html.matchAll(/name="session" value="([0-9a-f]{64})"/g)].map((m) => m[1]!);
    assert.equal(otherHash.length, 1, 'one other session, with its button');

    const stranger = new DashboardClient(app);
    await app.ctx.users.createUser('stranger@example.com', PASSWORD);
    await stranger.enter('/login', 'stranger@example.com', PASSWORD);
    await stranger.get('/account/sessions');
    await stranger.post('/account/sessions/end', { session: otherHash[0]! });
    assert.equal((await there.get('/account')).status, 200, 'another account cannot end it');

    const ended = await here.post('/account/sessions/end', { session: otherHash[0]! });
    assert.equal(ended.status, 303);
    assert.equal((await there.get('/account')).status, 303, 'signed out');
    assert.equal((await here.get('/account')).status, 200, 'this one stays');
  });
});
