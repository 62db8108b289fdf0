import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard.js';

const PASSWORD = 'correct horse battery';

async function settingOf(app: TestApp, key: string): Promise<string | undefined> {
  const row = await app.ctx.database.db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
  return row?.value;
}

describe('dashboard: a fresh installation’s first day (Set up Formgate)', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp();
  });
  after(async () => {
    await app?.close();
  });

  it('opens on the setup page: / and /login lead there, "For me and my team" chosen', async () => {
    const visitor = new DashboardClient(app);
    const home = await visitor.get('/');
    assert.equal(home.status, 303);
    assert.match(home.location ?? '', /^\/login/);
    const login = await visitor.get(home.location!);
    assert.equal(login.status, 303);
    assert.equal(login.location, '/setup');
    const setup = await visitor.get('/setup');
    assert.equal(setup.status, 200);
    assert.match(setup.html, /<h1[^>]*>Set up Formgate<\/h1>/);
    assert.match(setup.html, /<input id="usage-team" type="radio" name="usage" value="team" checked/);
    assert.doesNotMatch(setup.html, /value="hosting" checked/);
  });

  it('refuses a bad choice or a short password with the message beside it, and makes nothing', async () => {
    const visitor = new DashboardClient(app);
    await visitor.get('/setup');
    const badUsage = await visitor.post('/setup', { email: 'owner@example.com', password: PASSWORD, usage: 'everything' });
    assert.equal(badUsage.status, 400);
    assert.match(badUsage.html, /id="usage-error">Choose “For me and my team” or “Hosting forms for others”\.</);
    const short = await visitor.post('/setup', { email: 'owner@example.com', password: 'short', usage: 'team' });
    assert.equal(short.status, 400);
    assert.match(short.html, /id="field-password-error"/);
    assert.equal(await app.ctx.users.hasAnyAccount(), false);
    assert.equal(await settingOf(app, 'instance-usage'), undefined);
  });

  it('of two visitors setting up at once, one becomes the admin; the other gets no account, and the page is gone', async () => {
    const [a, b] = [new DashboardClient(app), new DashboardClient(app)];
    await Promise.all([a.get('/setup'), b.get('/setup')]);
    const answers = await Promise.all([
      a.post('/setup', { email: 'first@example.com', password: PASSWORD, usage: 'team' }),
      b.post('/setup', { email: 'second@example.com', password: PASSWORD, usage: 'hosting' }),
    ]);
    assert.deepEqual(
      answers.map((x) => x.status),
      [303, 303],
    );
    const users = await app.ctx.database.db.selectFrom('users').select(['email', 'isAdmin']).execute();
    assert.equal(users.length, 1, `one account: ${JSON.stringify(users)}`);
    assert.equal(users[0]!.isAdmin, 1);
    const winner = users[0]!.email === 'first@example.com' ? 0 : 1;
    assert.equal(answers[winner]!.location, '/');
    assert.equal(answers[1 - winner]!.location, '/login');
    assert.equal(await settingOf(app, 'instance-usage'), winner === 0 ? 'team' : 'hosting');

    // the page is gone, and posting to it makes nothing
    const late = new DashboardClient(app);
    const gone = await late.get('/setup');
    assert.equal(gone.status, 303);
    assert.equal(gone.location, '/login');
    const login = await late.get('/login');
    assert.equal(login.status, 200);
    const again = await late.post('/setup', { email: 'late@example.com', password: PASSWORD, usage: 'team' });
    assert.equal(again.status, 303);
    assert.equal(again.location, '/login');
    assert.equal(await app.ctx.users.findByEmail('late@example.com'), undefined);
    // and through /signup, the first-account path of older versions, no admin either
    const signup = await late.post('/signup', { email: 'late@example.com', password: PASSWORD });
    assert.notEqual(signup.status, 303);
    assert.equal((await app.ctx.database.db.selectFrom('users').select('id').where('isAdmin', '=', 1).execute()).length, 1);
  });
});

describe('dashboard: setting up with FORMGATE_DEFAULT_PLAN set', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp({ defaultPlan: 'BUNDLE_50000' });
  });
  after(async () => {
    await app?.close();
  });

  it('asks nothing of how it is used: plans apply, and the first workspace starts on that plan', async () => {
    const visitor = new DashboardClient(app);
    const page = await visitor.get('/setup');
    assert.match(page.html, /FORMGATE_DEFAULT_PLAN is set/);
    assert.doesNotMatch(page.html, /type="radio"/);
    const done = await visitor.post('/setup', { email: 'owner@example.com', password: PASSWORD });
    assert.equal(done.status, 303);
    assert.equal(app.ctx.instance.usage(), 'hosting');
    const workspace = await app.ctx.database.db.selectFrom('workspaces').select('plan').executeTakeFirstOrThrow();
    assert.equal(workspace.plan, 'BUNDLE_50000');
  });
});
