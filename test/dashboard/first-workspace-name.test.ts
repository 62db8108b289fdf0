import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SignupLinks } from '../../src/services/signup-links.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { DashboardClient, decodeEntities } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';

const PASSWORD = 'correct horse battery';

async function workspaceNames(app: TestApp, email: string): Promise<string[]> {
  const user = await app.ctx.users.requireByEmail(email);
  return (await app.ctx.workspaces.listForUser(user.id, { limit: 10, after: null })).rows.map((w) => w.name);
}

describe(`dashboard: the first workspace is named at setup, not "My workspace" (${TEST_DIALECT})`, () => {
  let app: TestApp;
  before(async () => {
    app = await startApp();
  });
  after(async () => {
    await app?.close();
  });

  it('offers a name, refuses an empty or too long one beside the field (making nothing), and the invitation names it', async () => {
    const visitor = new DashboardClient(app);
    const page = await visitor.get('/setup');
    assert.match(page.html, /<input id="field-workspaceName" name="workspaceName" type="text" value="Our team" autocomplete="organization" required/);
    for (const workspaceName of ['', 'x'.repeat(129)]) {
      const refused = await visitor.post('/setup', { email: 'owner@example.com', password: PASSWORD, usage: 'team', workspaceName });
      assert.equal(refused.status, 400);
      assert.match(refused.html, /id="field-workspaceName-error">Must be 1 to 128 characters\.</);
      assert.equal(await app.ctx.users.hasAnyAccount(), false);
    }
    // 128 characters as the rename counts them (code points): an emoji is one
    const longest = `${'é'.repeat(126)}🙂x`;
    const made = await visitor.post('/setup', { email: 'owner@example.com', password: PASSWORD, usage: 'team', workspaceName: longest });
    assert.equal(made.status, 303);
    assert.deepEqual(await workspaceNames(app, 'owner@example.com'), [longest]);
    const owner = await app.ctx.users.requireByEmail('owner@example.com');
    const [workspace] = (await app.ctx.workspaces.listForUser(owner.id, { limit: 1, after: null })).rows;
    await app.ctx.workspaces.renameWorkspace(owner.id, workspace!.id, 'Acme Studio');

    const { link } = await app.ctx.invitations.invite(owner.id, workspace!.id, 'newcomer@example.com');
    const invited = new DashboardClient(app);
    const opened = await invited.get(new URL(link).pathname);
    assert.equal(opened.status, 303);
    const invitation = await invited.get(opened.location!);
    assert.match(decodeEntities(invitation.html), /Create your account to join the workspace “Acme Studio”/);
    assert.doesNotMatch(invitation.html, /My workspace/);
  });
});

describe(`dashboard: open sign-up names the new workspace after the address (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let links: SignupLinks;
  before(async () => {
    app = await startApp({ signup: 'open' });
    await app.ctx.users.createUser('admin@example.com', PASSWORD);
    links = new SignupLinks(app.ctx.keyring);
  });
  after(async () => {
    await app?.close();
  });

  it('offers the organisation of the address, or the person’s name at a mail provider, and takes what is typed', async () => {
    const visitor = new DashboardClient(app);
    const acme = await visitor.get(`/signup/confirm?token=${links.issue('ann@mail.acme.co.uk')}`);
    assert.match(acme.html, /name="workspaceName" type="text" value="Acme"/);
    const gmail = await visitor.get(`/signup/confirm?token=${links.issue('ann.smith+forms@gmail.com')}`);
    assert.match(decodeEntities(gmail.html), /name="workspaceName" type="text" value="Ann Smith’s workspace"/);

    const token = links.issue('bob@example.org');
    const empty = await visitor.post('/signup/confirm', { token, password: PASSWORD, workspaceName: '' });
    assert.equal(empty.status, 400);
    assert.match(empty.html, /id="field-workspaceName-error">Must be 1 to 128 characters\.</);
    assert.equal(await app.ctx.users.findByEmail('bob@example.org'), undefined);
    const made = await visitor.post('/signup/confirm', { token, password: PASSWORD, workspaceName: 'Bob’s bakery' });
    assert.equal(made.status, 303);
    assert.deepEqual(await workspaceNames(app, 'bob@example.org'), ['Bob’s bakery']);

    // a post without the field (an older page) gets the offered name
    const carol = new DashboardClient(app);
    await carol.get(`/signup/confirm?token=${links.issue('carol@example.net')}`);
    assert.equal((await carol.post('/signup/confirm', { token: links.issue('carol@example.net'), password: PASSWORD })).status, 303);
    assert.deepEqual(await workspaceNames(app, 'carol@example.net'), ['Example']);
  });
});
