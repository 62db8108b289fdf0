import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard.js';
import { createAccount, createForm } from '../helpers/fixtures.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';

const PASSWORD = 'correct horse battery';
const from = visitorAddresses(4);

function flash(html: string): string | undefined {
  return /class="flash" role="status">([^<]*)</.exec(html)?.[1];
}

describe('dashboard: the admin disables and deletes accounts', () => {
  let app: TestApp;
  let admin: DashboardClient;

  before(async () => {
    app = await startApp();
    admin = new DashboardClient(app);
    await admin.enter('/signup', 'admin@example.com', PASSWORD);
  });
  after(async () => {
    await app?.close();
  });

  it('disables an account: no login, its session and tokens stop at once, its forms still take submissions; enabling undoes it', async () => {
    const account = await createAccount(app, { email: 'worker@example.com' });
    await app.ctx.users.setPassword(account.userId, PASSWORD);
    const form = await createForm(app, account);
    const person = new DashboardClient(app);
    await person.enter('/login', 'worker@example.com', PASSWORD);
    assert.equal((await person.get(`/w/${account.workspaceId}`)).status, 200);

    const page = await admin.get(`/admin/accounts/${account.userId}`);
    assert.equal(page.status, 200);
    assert.match(page.html, /Its workspaces keep receiving submissions/);
    const disabled = await admin.post(`/admin/accounts/${account.userId}/disable`, {});
    assert.equal(disabled.status, 303);
    assert.match(flash((await admin.get(disabled.location!)).html) ?? '', /worker@example\.com is disabled/);

    const session = await person.get(`/w/${account.workspaceId}`);
    assert.equal(session.status, 303, 'the session stopped');
    const token = await app.api('GET', '/workspaces', { token: account.token });
    assert.equal(token.status, 401);
    assert.match(JSON.stringify(token.body), /account is disabled/);
    await person.get('/login');
    const login = await person.post('/login', { email: 'worker@example.com', password: PASSWORD });
    assert.equal(login.status, 403);
    assert.match(login.html, /This account is disabled/);
    const wrong = await person.post('/login', { email: 'worker@example.com', password: 'not the password at all' });
    assert.equal(wrong.status, 400, 'a wrong password learns nothing of the account');
    assert.equal((await postJson(app, form.id, { email: 'a@example.com' }, from())).status, 200, 'its form still takes submissions');
    assert.match((await admin.get('/admin')).html, /worker@example\.com.*?<span class="badge neutral">Disabled<\/span>/s);

    assert.equal((await admin.post(`/admin/accounts/${account.userId}/enable`, {})).status, 303);
    assert.equal((await app.api('GET', '/workspaces', { token: account.token })).status, 200);
    await person.get('/login');
    assert.equal((await person.post('/login', { email: 'worker@example.com', password: PASSWORD })).status, 303);
  });

  it('deletes an account with the workspaces it alone owns; a shared one stays with its other owner', async () => {
    const leaving = await createAccount(app, { email: 'leaving@example.com' });
    const form = await createForm(app, leaving);
    await postJson(app, form.id, { email: 'b@example.com' }, from());
    const partner = await createAccount(app, { email: 'partner@example.com' });
    // a second workspace of the leaving account, shared with the partner as a co-owner
    const shared = await app.ctx.workspaces.createWorkspace(leaving.userId, 'Shared');
    await app.ctx.workspaces.addMember(shared.id, 'partner@example.com');
    await app.ctx.database.db.updateTable('workspaceMembers').set({ role: 'owner' }).where('workspaceId', '=', shared.id).execute();

    const page = await admin.get(`/admin/accounts/${leaving.userId}`);
    assert.match(page.html, /It alone owns these workspaces: deleting the account deletes them/);
    assert.match(page.html, /<strong>My workspace<\/strong> \(1 form, 1 submission\)/);
    assert.match(page.html, /These workspaces stay.*<strong>Shared<\/strong>/s);

    const deleted = await admin.post(`/admin/accounts/${leaving.userId}/delete`, {});
    assert.equal(deleted.status, 303);
    assert.equal(flash((await admin.get('/admin')).html), 'leaving@example.com was deleted, with the 1 workspace it alone owned.');
    const db = app.ctx.database.db;
    assert.equal(await db.selectFrom('users').select('id').where('id', '=', leaving.userId).executeTakeFirst(), undefined);
    assert.equal(await db.selectFrom('workspaces').select('id').where('id', '=', leaving.workspaceId).executeTakeFirst(), undefined);
    assert.equal(await db.selectFrom('forms').select('id').where('id', '=', form.id).executeTakeFirst(), undefined);
    assert.equal(await db.selectFrom('submissions').select('id').where('formId', '=', form.id).executeTakeFirst(), undefined);
    const kept = await db.selectFrom('workspaces').select('ownerId').where('id', '=', shared.id).executeTakeFirstOrThrow();
    assert.equal(kept.ownerId, partner.userId);
    assert.equal((await app.api('GET', '/workspaces', { token: leaving.token })).status, 401);
  });

  it('never disables or deletes the admin’s own account, and anyone else finds nothing there', async () => {
    const me = await app.ctx.users.requireByEmail('admin@example.com');
    const page = await admin.get(`/admin/accounts/${me.id}`);
    assert.equal(page.status, 303);
    for (const action of ['disable', 'delete']) {
      const refused = await admin.post(`/admin/accounts/${me.id}/${action}`, {});
      assert.equal(refused.status, 303);
      assert.equal(flash((await admin.get('/admin')).html), 'The instance admin’s own account cannot be disabled or deleted.');
    }
    const still = await app.ctx.users.requireByEmail('admin@example.com');
    assert.equal(still.disabledAt, null);

    const other = await createAccount(app, { email: 'nosy@example.com' });
    await app.ctx.users.setPassword(other.userId, PASSWORD);
    const nosy = new DashboardClient(app);
    await nosy.enter('/login', 'nosy@example.com', PASSWORD);
    assert.equal((await nosy.get(`/admin/accounts/${me.id}`)).status, 404);
    await nosy.get('/workspaces'); // a valid CSRF token of its own session
    assert.equal((await nosy.post(`/admin/accounts/${other.userId}/delete`, {})).status, 404);
    assert.ok(await app.ctx.users.findByEmail('nosy@example.com'));
    assert.equal((await admin.post('/admin/accounts/nobody/delete', {})).status, 404);
  });

  it('shows the health: version, backlog per lane, and failing channels with links', async () => {
    const account = await createAccount(app);
    const form = await createForm(app, account, { webhookUrl: 'https://hooks.example.com/x' });
    await postJson(app, form.id, { email: 'c@example.com' }, from());
    await app.ctx.database.db
      .updateTable('jobs')
      .set({ status: 'failed', lastError: 'HTTP 500 from the receiver', updatedAt: Date.now() })
      .where('kind', '=', 'webhook')
      .execute();
    const page = await admin.get('/admin');
    assert.match(page.html, /<h2 id="health-heading">Health<\/h2>/);
    assert.match(page.html, /Formgate <strong>\d+\.\d+\.\d+/);
    assert.match(page.html, /data-label="Lane">Webhooks</);
    assert.match(page.html, new RegExp(`<a href="/forms/${form.id}/deliveries">Contact \\(My workspace\\)</a>: Webhook, 1 failed`));
    assert.match(page.html, /HTTP 500 from the receiver/);
  });
});
