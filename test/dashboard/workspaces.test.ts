import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard.js';

const PASSWORD = 'correct horse battery';

/** The message shown beside a field, if any. */
function fieldError(html: string, name: string): string | undefined {
  return new RegExp(`id="field-${name}-error">([^<]*)<`).exec(html)?.[1];
}

/** The message about the form as a whole, if any. */
function formError(html: string): string | undefined {
  return /class="alert" role="alert">([^<]*)</.exec(html)?.[1];
}

function flash(html: string): string | undefined {
  return /class="flash" role="status">([^<]*)</.exec(html)?.[1];
}

describe('dashboard: workspaces and their settings', () => {
  let app: TestApp;
  let owner: DashboardClient;
  let ownerId: string;
  let freeId: string;

  async function workspacesOf(userId: string) {
    return (await app.ctx.workspaces.listForUser(userId, { limit: 100, after: null })).rows;
  }

  before(async () => {
    app = await startApp();
    owner = new DashboardClient(app);
    await owner.enter('/signup', 'owner@example.com', PASSWORD);
    ownerId = (await app.ctx.users.requireByEmail('owner@example.com')).id;
    freeId = (await workspacesOf(ownerId))[0]!.id;
  });
  after(() => app?.close());

  it('lists every workspace of the account with its plan, submissions left and role, each linking to it', async () => {
    const { workspace: theirs } = await app.ctx.users.createUser('team@example.com');
    await app.ctx.workspaces.addMember(theirs.id, 'owner@example.com');
    await app.ctx.database.db.updateTable('workspaces').set({ submissionsUsed: 40 }).where('id', '=', freeId).execute();
    const page = await owner.get('/workspaces');
    assert.equal(page.status, 200);
    const rows = [...page.html.matchAll(/<tr>(.*?)<\/tr>/gs)].map((m) =>
      m[1]!
        .replace(/<[^>]+>/g, ' ')
        .replace(/\s+/g, ' ')
        .trim(),
    );
    assert.deepEqual(rows.slice(1), ['My workspace Free 250 of 250 Member', 'My workspace Free 210 of 250 Owner']);
    assert.ok(page.html.includes(`href="/w/${theirs.id}"`) && page.html.includes(`href="/w/${freeId}"`));
    assert.match(page.html, /href="\/workspaces">All workspaces</, 'the switcher links here');
  });

  it('refuses a name of 0 or 129 characters, and a second free workspace with the API’s detail; nothing is created', async () => {
    assert.equal((await owner.get('/workspaces/new')).status, 200);
    for (const name of ['', 'x'.repeat(129)]) {
      const refused = await owner.post('/workspaces/new', { name });
      assert.equal(refused.status, 400, `name of ${name.length}`);
      assert.equal(fieldError(refused.html, 'name'), 'Must be 1 to 128 characters.');
      assert.ok(refused.html.includes(`value="${name}"`) || name === '', 'the name is shown again as typed');
    }
    const second = await owner.post('/workspaces/new', { name: 'Second' });
    assert.equal(second.status, 400);
    assert.equal(formError(second.html), `An account has one free workspace and ${freeId} is it; upgrade it before creating another.`);
    assert.equal((await workspacesOf(ownerId)).length, 2, 'still its own and the one it is a member of');
  });

  it('creates a workspace once the free one is upgraded, and opens it with "Workspace created"', async () => {
    await app.ctx.workspaces.setPlan(freeId, 'BUNDLE_50000', { tellOwners: false });
    const created = await owner.post('/workspaces/new', { name: 'Client site' });
    assert.equal(created.status, 303);
    const id = /^\/w\/([a-z2-7]+)$/.exec(created.location ?? '')?.[1];
    assert.ok(id, created.location ?? 'no location');
    const workspace = await app.ctx.workspaces.getForMember(ownerId, id);
    assert.equal(workspace.name, 'Client site');
    assert.equal(workspace.plan, 'FREE', 'the default plan');
    const home = await owner.get(created.location!);
    assert.equal(flash(home.html), 'Workspace created');
    assert.match(home.html, /<h1>Client site<\/h1>/);
  });

  it('renames a workspace on any plan, by an owner or a member, with "Workspace renamed"; a bad name changes nothing', async () => {
    const member = new DashboardClient(app);
    await app.ctx.users.createUser('member@example.com', PASSWORD);
    await app.ctx.workspaces.addMember(freeId, 'member@example.com');
    await member.enter('/login', 'member@example.com', PASSWORD);
    await app.ctx.workspaces.setPlan(freeId, 'FREE', { tellOwners: false });

    const page = await member.get(`/w/${freeId}/settings`);
    assert.equal(page.status, 200);
    assert.match(page.html, /Plan and allowance/);
    assert.match(page.html, /Submissions left<\/dt><dd>210<span class="muted"> of 250/);
    assert.ok(page.html.includes(freeId), 'shows its ID for the API and the CLI');

    const renamed = await member.post(`/w/${freeId}/settings`, { name: 'Marketing' });
    assert.equal(renamed.status, 303);
    assert.equal(renamed.location, `/w/${freeId}/settings`);
    const shown = await member.get(renamed.location!);
    assert.equal(flash(shown.html), 'Workspace renamed');
    assert.match(shown.html, /value="Marketing"/);
    assert.equal((await app.ctx.workspaces.requireById(freeId)).name, 'Marketing');

    for (const name of ['', 'é'.repeat(129)]) {
      const refused = await owner.post(`/w/${freeId}/settings`, { name });
      assert.equal(refused.status, 400);
      assert.equal(fieldError(refused.html, 'name'), 'Must be 1 to 128 characters.');
    }
    assert.equal((await owner.post(`/w/${freeId}/settings`, { name: 'é'.repeat(128) })).status, 303, '128 characters, counted as the API counts them');
    await owner.post(`/w/${freeId}/settings`, { name: 'Marketing' });
    assert.equal((await app.ctx.workspaces.requireById(freeId)).name, 'Marketing');
  });

  it('shows another account’s workspace settings to no one else: the 404 page, and a rename changes nothing', async () => {
    const stranger = new DashboardClient(app);
    await app.ctx.users.createUser('stranger@example.com', PASSWORD);
    await stranger.enter('/login', 'stranger@example.com', PASSWORD);
    const page = await stranger.get(`/w/${freeId}/settings`);
    assert.equal(page.status, 404);
    assert.doesNotMatch(page.html, /Marketing/);
    await stranger.get('/workspaces'); // a page of its own session, for a valid CSRF token
    const rename = await stranger.post(`/w/${freeId}/settings`, { name: 'Taken over' });
    assert.equal(rename.status, 404);
    assert.equal((await app.ctx.workspaces.requireById(freeId)).name, 'Marketing');
    assert.equal((await stranger.get('/w/nosuchworkspace/settings')).status, 404, 'the same for one that does not exist');
  });

  it('sends a logged-out visitor to the login page and back', async () => {
    const visitor = new DashboardClient(app);
    for (const path of ['/workspaces', '/workspaces/new', `/w/${freeId}/settings`]) {
      const answer = await visitor.get(path);
      assert.equal(answer.status, 303);
      assert.equal(answer.location, `/login?next=${encodeURIComponent(path)}`);
    }
  });
});

describe('dashboard: FORMGATE_DEFAULT_PLAN', () => {
  it('gives a new account’s workspace and a created one the default plan; the one-free rule counts FREE ones only', async () => {
    const app = await startApp({ defaultPlan: 'DEALIFY' });
    try {
      const client = new DashboardClient(app);
      await client.enter('/signup', 'dealify@example.com', PASSWORD);
      const user = await app.ctx.users.requireByEmail('dealify@example.com');
      const list = async () => (await app.ctx.workspaces.listForUser(user.id, { limit: 10, after: null })).rows;
      assert.deepEqual(
        (await list()).map((w) => w.plan),
        ['DEALIFY'],
      );
      const form = await client.get('/workspaces/new');
      assert.match(form.html, /New workspaces start on the Upgraded \(Dealify\) plan/);
      for (const name of ['Second', 'Third']) {
        const created = await client.post('/workspaces/new', { name });
        assert.equal(created.status, 303, name);
      }
      assert.deepEqual(
        (await list()).map((w) => [w.name, w.plan]),
        [
          ['Third', 'DEALIFY'],
          ['Second', 'DEALIFY'],
          ['My workspace', 'DEALIFY'],
        ],
      );
    } finally {
      await app.close();
    }
  });
});
