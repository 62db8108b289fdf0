import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard.js';
import { alertOf, flashOf, invitationPath, invite, memberIds, person } from '../helpers/members.js';

describe('dashboard: accepting an invitation without being logged in', () => {
  let app: TestApp;

  before(async () => {
    app = await startApp();
  });
  after(() => app?.close());

  it('signs up a new address by the link (FORMGATE_SIGNUP=invite): the address is fixed, and the account lands in the workspace', async () => {
    const owner = await person(app, 'owner');
    await invite(owner, 'new@example.com');
    const link = await invitationPath(app, 'new@example.com');
    const visitor = new DashboardClient(app);
    const opened = await visitor.get(link);
    assert.equal(opened.status, 303);
    assert.equal(opened.location, `/signup?invitation=${link.split('/').pop()}`);
    const form = await visitor.get(opened.location!);
    assert.equal(form.status, 200);
    assert.match(form.html, /Create your account to join the workspace “My workspace”/);
    assert.match(form.html, /name="email" type="email" value="new@example.com"[^>]*readonly/);

    const secret = link.split('/').pop()!;
    const other = await visitor.post('/signup', { invitation: secret, email: 'someone-else@example.com', password: 'a long enough password' });
    assert.equal(other.status, 400);
    assert.match(other.html, /This invitation is for new@example\.com; create the account with that address\./);
    assert.equal(await app.ctx.users.findByEmail('someone-else@example.com'), undefined);
    const short = await visitor.post('/signup', { invitation: secret, email: 'new@example.com', password: 'short' });
    assert.equal(short.status, 400);
    assert.equal(await app.ctx.users.findByEmail('new@example.com'), undefined);

    const created = await visitor.post('/signup', { invitation: secret, email: 'new@example.com', password: 'a long enough password' });
    assert.equal(created.status, 303);
    assert.equal(created.location, `/w/${owner.workspaceId}`);
    assert.equal(flashOf((await visitor.get(created.location!)).html), 'You joined My workspace');
    const user = await app.ctx.users.requireByEmail('new@example.com');
    assert.deepEqual(await memberIds(app, owner.workspaceId), [owner.userId, user.id].sort());
    assert.equal(user.isAdmin, 0);

    const fresh = new DashboardClient(app);
    assert.equal((await fresh.get(link)).status, 410, 'the link works once');
    assert.equal((await fresh.get(`/signup?invitation=${secret}`)).status, 410);
    assert.equal((await fresh.get('/signup')).status, 403, 'sign-up without an invitation stays closed');
  });

  it('asks an address that has an account to log in, then comes back to the invitation', async () => {
    const owner = await person(app, 'owner');
    const invited = await person(app, 'existing');
    await invite(owner, invited.email);
    const link = await invitationPath(app, invited.email);
    const visitor = new DashboardClient(app);
    const page = await visitor.get(link);
    assert.equal(page.status, 200);
    assert.match(page.html, /already has an account here\. Log in with it to accept/);
    const next = encodeURIComponent(link);
    assert.match(page.html, new RegExp(`href="/login\\?next=${next}"`));
    assert.equal((await visitor.get(`/signup?invitation=${link.split('/').pop()}`)).location, link, 'no second account for the address');

    await visitor.get(`/login?next=${next}`);
    const login = await visitor.post('/login', { email: invited.email, password: 'a long enough password', next: link });
    assert.equal(login.location, link);
    const join = await visitor.get(link);
    assert.match(join.html, /Join workspace/);
    assert.equal((await visitor.post(link, {})).location, `/w/${owner.workspaceId}`);
  });

  it('offers another account to log out, and then shows the invitation again', async () => {
    const owner = await person(app, 'owner');
    const someoneElse = await person(app, 'someone');
    await invite(owner, 'third@example.com');
    const link = await invitationPath(app, 'third@example.com');
    await someoneElse.client.get(link);
    const out = await someoneElse.client.post(`${link}/logout`, {});
    assert.equal(out.status, 303);
    assert.equal(out.location, link);
    assert.equal(someoneElse.client.cookies.has('fg_session'), false);
    assert.match((await someoneElse.client.get(link)).location ?? '', /^\/signup\?invitation=/);
  });

  it('joins within the plan’s member limit: past it (a downgrade), the join is refused and no account is made', async () => {
    const owner = await person(app, 'owner');
    await app.ctx.workspaces.setPlan(owner.workspaceId, 'BUNDLE_50000');
    for (let i = 0; i < 4; i++) await app.ctx.workspaces.addMember(owner.workspaceId, (await person(app, 'member')).email);
    await invite(owner, 'over@example.com');
    const link = await invitationPath(app, 'over@example.com');
    await app.ctx.workspaces.setPlan(owner.workspaceId, 'FREE');
    const visitor = new DashboardClient(app);
    await visitor.get((await visitor.get(link)).location!);
    const refused = await visitor.post('/signup', { invitation: link.split('/').pop()!, email: 'over@example.com', password: 'a long enough password' });
    assert.equal(refused.status, 400);
    assert.equal(alertOf(refused.html), 'A workspace on the Free plan has at most 5 team members, counting pending invitations.');
    assert.equal(await app.ctx.users.findByEmail('over@example.com'), undefined, 'the account and the join are one transaction');
    assert.equal((await memberIds(app, owner.workspaceId)).length, 5);
  });
});

describe('dashboard: sign-up by invitation and FORMGATE_SIGNUP', () => {
  for (const [mode, status] of [
    ['closed', 403],
    ['open', 303],
  ] as const) {
    it(`FORMGATE_SIGNUP=${mode}: sign-up by an invitation's link ${status === 403 ? 'is refused' : 'works'}`, async () => {
      const app = await startApp({ signup: mode });
      try {
        const owner = await person(app, 'owner');
        await invite(owner, 'invited@example.com');
        const secret = (await invitationPath(app, 'invited@example.com')).split('/').pop()!;
        const visitor = new DashboardClient(app);
        await visitor.get('/login');
        assert.equal((await visitor.get(`/signup?invitation=${secret}`)).status, status === 403 ? 403 : 200);
        const answer = await visitor.post('/signup', { invitation: secret, email: 'invited@example.com', password: 'a long enough password' });
        assert.equal(answer.status, status);
        assert.equal((await app.ctx.users.findByEmail('invited@example.com')) !== undefined, status === 303);
      } finally {
        await app.close();
      }
    });
  }
});
