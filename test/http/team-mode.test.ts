import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard.js';
import { createAccount, createForm } from '../helpers/fixtures.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';
import { UNLIMITED_SUBMISSIONS } from '../../src/domain/plans.js';

const PASSWORD = 'correct horse battery';
const from = visitorAddresses(6);

describe('team mode: every workspace gets every feature and no cap, whatever its stored plan', () => {
  let app: TestApp;
  let admin: DashboardClient;

  before(async () => {
    app = await startApp();
    admin = new DashboardClient(app);
    await admin.enter('/signup', 'admin@example.com', PASSWORD);
    await admin.get('/admin');
    const saved = await admin.post('/admin/usage', { usage: 'team' });
    assert.equal(saved.status, 303);
  });
  after(async () => {
    await app?.close();
  });

  it('a FREE workspace has the API; the API still says FREE, with a quota that suggests no cap', async () => {
    assert.equal(app.ctx.instance.usage(), 'team');
    const account = await createAccount(app, { plan: 'FREE' });
    const answer = await app.api('GET', '/workspaces', { token: account.token });
    assert.equal(answer.status, 200);
    const [workspace] = answer.body.data;
    assert.equal(workspace.plan, 'FREE');
    assert.equal(workspace.submissionsQuota, UNLIMITED_SUBMISSIONS);
    assert.equal(workspace.submissionsQuota, 2_147_483_647);
  });

  it('takes submissions far past the FREE allowance (none held), more than 10 forms and 5 members', async () => {
    const account = await createAccount(app, { plan: 'FREE' });
    const form = await createForm(app, account);
    await app.ctx.database.db.updateTable('workspaces').set({ submissionsUsed: 10_000 }).where('id', '=', account.workspaceId).execute();
    assert.equal((await postJson(app, form.id, { email: 'x@example.com' }, from())).status, 200);
    const statuses = await app.ctx.database.db.selectFrom('submissions').select('status').where('formId', '=', form.id).execute();
    assert.deepEqual(
      statuses.map((s) => s.status),
      ['accepted'],
    );
    for (let i = 0; i < 11; i++) await createForm(app, account, { name: `Form ${i}` });
    for (let i = 0; i < 6; i++) {
      const member = await app.ctx.users.createUser(`member${i}-${Date.now()}@example.com`);
      await app.ctx.workspaces.addMember(account.workspaceId, member.user.email);
    }
    const page = await admin.get('/workspaces');
    assert.doesNotMatch(page.html, /data-label="Plan"|Unlimited|Free/);
    assert.match(page.html, /data-label="Submissions received"/);
  });

  it('the workspace page shows its usage and no plan: no code, no name, no limit (issue 41, item 16)', async () => {
    const account = await createAccount(app, { plan: 'FREE', email: 'pageowner@example.com' });
    await app.ctx.users.setPassword(account.userId, PASSWORD);
    const owner = new DashboardClient(app);
    await owner.enter('/login', 'pageowner@example.com', PASSWORD);
    const page = await owner.get(`/w/${account.workspaceId}`);
    assert.match(page.html, /<h2 id="usage-heading">Usage<\/h2>/);
    assert.match(page.html, /<dt>Team members<\/dt><dd>1<span class="muted"> member<\/span><\/dd>/);
    assert.doesNotMatch(page.html, />FREE<|Unlimited|no limit|<dt>Plan<\/dt>/);
  });

  it('back in hosting mode, the plans’ caps apply again', async () => {
    await admin.get('/admin');
    assert.equal((await admin.post('/admin/usage', { usage: 'hosting' })).status, 303);
    const account = await createAccount(app, { plan: 'FREE' });
    const answer = await app.api('GET', '/workspaces', { token: account.token });
    assert.equal(answer.body.data[0].submissionsQuota, 250);
    const form = await app.api('POST', '/forms', { token: account.token, body: { workspaceId: account.workspaceId, name: 'Contact' } });
    assert.equal(form.status, 403, 'a FREE workspace has no API again');
    await admin.get('/admin');
    const refused = await admin.post('/admin/usage', { usage: 'everything' });
    assert.equal(refused.status, 400);
    assert.match(refused.html, /id="usage-error"/);
    assert.equal(app.ctx.instance.usage(), 'hosting');
  });
});

describe('team mode: FORMGATE_DEFAULT_PLAN wins', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp({ defaultPlan: 'FREE' });
  });
  after(async () => {
    await app?.close();
  });

  it('the admin page says so and refuses to change the mode', async () => {
    const admin = new DashboardClient(app);
    await admin.enter('/signup', 'admin@example.com', PASSWORD);
    const page = await admin.get('/admin');
    assert.match(page.html, /FORMGATE_DEFAULT_PLAN is set, so plans and their limits apply/);
    const refused = await admin.post('/admin/usage', { usage: 'team' });
    assert.equal(refused.status, 400);
    assert.equal(app.ctx.instance.usage(), 'hosting');
  });
});
