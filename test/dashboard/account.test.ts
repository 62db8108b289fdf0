import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard.js';

const EMAIL = 'account@example.com';
const PASSWORD = 'first password here';

/** Whether the client's session still opens a page behind the login. */
async function loggedIn(client: DashboardClient): Promise<boolean> {
  const answer = await client.get('/account');
  return answer.status === 200;
}

describe('dashboard: the account page', () => {
  let app: TestApp;
  let userId: string;

  before(async () => {
    app = await startApp();
    ({
      user: { id: userId },
    } = await app.ctx.users.createUser(EMAIL, PASSWORD));
  });
  after(() => app?.close());

  /** Two browsers logged in to the account: `here` makes the changes, `there` is the other one. */
  async function twoBrowsers(password = PASSWORD): Promise<[DashboardClient, DashboardClient]> {
    const here = new DashboardClient(app);
    const there = new DashboardClient(app);
    await here.enter('/login', EMAIL, password);
    await there.enter('/login', EMAIL, password);
    return [here, there];
  }

  it('sends a visitor who is not logged in to log in first, and back', async () => {
    const answer = await new DashboardClient(app).get('/account');
    assert.equal(answer.status, 303);
    assert.equal(answer.location, '/login?next=%2Faccount');
  });

  it('shows the address and how many sessions are live', async () => {
    await app.ctx.sessions.endAll(userId);
    const [here] = await twoBrowsers();
    const page = await here.get('/account');
    assert.equal(page.status, 200);
    assert.match(page.html, /<h1>Account settings<\/h1>/);
    assert.match(page.html, new RegExp(`<dd class="account-email">${EMAIL}</dd>`));
    assert.match(page.html, /<dt>Live sessions<\/dt><dd>2<\/dd>/);
    assert.match(page.html, /logged in on this browser and 1 other\./);
    assert.match(page.html, /<a href="\/account">Account settings<\/a>/, 'reached from the account menu');
  });

  it('refuses a wrong current password beside its field and changes nothing', async () => {
    const [here, there] = await twoBrowsers();
    await here.get('/account');
    const answer = await here.post('/account/password', { currentPassword: 'not the password', newPassword: 'another password' });
    assert.equal(answer.status, 400);
    assert.match(answer.html, /id="field-currentPassword-error">Is not the account’s password\.</);
    assert.ok(await app.ctx.users.authenticate(EMAIL, PASSWORD), 'the password is unchanged');
    assert.equal(await app.ctx.users.authenticate(EMAIL, 'another password'), null);
    assert.ok(await loggedIn(there), 'no session ended');

    const short = await here.post('/account/password', { currentPassword: PASSWORD, newPassword: 'short' });
    assert.equal(short.status, 400);
    assert.match(short.html, /id="field-newPassword-error">Must be at least 8 characters\.</);
    assert.ok(await app.ctx.users.authenticate(EMAIL, PASSWORD), 'the password is unchanged');
  });

  it('changes the password, ends the other sessions and keeps this one', async () => {
    const [here, there] = await twoBrowsers();
    await here.get('/account');
    const answer = await here.post('/account/password', { currentPassword: PASSWORD, newPassword: 'second password here' });
    assert.equal(answer.status, 303);
    assert.equal(answer.location, '/account');
    const page = await here.get('/account');
    assert.equal(page.status, 200, 'this browser stays logged in');
    assert.match(page.html, /role="status">Password changed</);
    assert.match(page.html, /<dt>Live sessions<\/dt><dd>1<\/dd>/);
    assert.equal(await loggedIn(there), false, 'the other browser is logged out');
    assert.equal(await app.ctx.users.authenticate(EMAIL, PASSWORD), null);
    assert.ok(await app.ctx.users.authenticate(EMAIL, 'second password here'));
    await app.ctx.users.setPassword(userId, PASSWORD);
  });

  it('logs out everywhere: this browser and every other', async () => {
    const [here, there] = await twoBrowsers();
    await here.get('/account');
    const answer = await here.post('/account/logout-everywhere', {});
    assert.equal(answer.status, 303);
    assert.equal(answer.location, '/login');
    assert.equal(here.cookies.has('fg_session'), false, 'the cookie is cleared');
    assert.match((await here.get('/login')).html, /role="status">You are logged out everywhere\.</);
    assert.equal(await loggedIn(here), false);
    assert.equal(await loggedIn(there), false, 'the other browser is logged out too');
    assert.equal(await app.ctx.sessions.countLive(userId), 0);
  });

  it('refuses the account’s changes without the CSRF token', async () => {
    const [here] = await twoBrowsers();
    await here.get('/account');
    const answer = await here.post('/account/logout-everywhere', { _csrf: 'forged' });
    assert.equal(answer.status, 403);
    assert.ok(await loggedIn(here), 'still logged in');
  });
});

describe('dashboard: guessing the current password on the account page', () => {
  it('counts wrong current passwords as failed logins of the account', async () => {
    const app = await startApp({ rateLimitLoginAccount: '2/15m' });
    try {
      await app.ctx.users.createUser(EMAIL, PASSWORD);
      const here = new DashboardClient(app);
      await here.enter('/login', EMAIL, PASSWORD);
      await here.get('/account');
      for (const guess of ['guess number one', 'guess number two']) {
        assert.equal((await here.post('/account/password', { currentPassword: guess, newPassword: 'stolen password' })).status, 400);
      }
      const limited = await here.post('/account/password', { currentPassword: PASSWORD, newPassword: 'stolen password' });
      assert.equal(limited.status, 429);
      assert.match(limited.html, /id="field-currentPassword-error">Too many attempts; try again in 15 minutes\.</);
      assert.ok(await app.ctx.users.authenticate(EMAIL, PASSWORD), 'the password is unchanged');
    } finally {
      await app.close();
    }
  });
});
