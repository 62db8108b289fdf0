import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { INVITATIONS_PER_HOUR } from '../../src/services/invitations.js';
import { hashSecret } from '../../src/services/secrets.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { assertRefusedBy } from '../helpers/problems.js';
import { alertOf, emailCount, flashOf, invitationPath, invite, loggedIn, memberIds, type Person, person } from '../helpers/members.js';

describe('dashboard: members and invitations', () => {
  let app: TestApp;

  before(async () => {
    app = await startApp();
  });
  after(() => app?.close());

  it('an owner invites by email: a flash, the pending invitation listed, one email whose link is stored hashed and expires in 7 days', async () => {
    const owner = await person(app, 'owner');
    const before = await emailCount(app);
    const sent = await invite(owner, 'Newcomer@Example.com');
    assert.equal(sent.flash, 'Invitation sent to newcomer@example.com');
    assert.equal(sent.link, `${app.publicUrl}${await invitationPath(app, 'newcomer@example.com')}`, 'the link shown is the one emailed');
    const page = await owner.client.get(`/w/${owner.workspaceId}/members`);
    assert.equal(page.status, 200);
    assert.match(page.html, /Pending invitations[\s\S]*newcomer@example\.com[\s\S]*Revoke invitation/);
    assert.match(page.html, /2 of 5 members, counting pending invitations/);
    const home = await owner.client.get(`/w/${owner.workspaceId}`);
    assert.match(home.html, /<dt>Team members<\/dt><dd>2<span class="muted"> of 5<\/span>/, 'the workspace page counts the invitation too');
    assert.equal(await emailCount(app), before + 1);
    const secret = (await invitationPath(app, 'newcomer@example.com')).split('/').pop()!;
    const row = await app.ctx.database.db.selectFrom('invitations').selectAll().where('workspaceId', '=', owner.workspaceId).executeTakeFirstOrThrow();
    assert.equal(row.tokenHash, hashSecret(secret));
    assert.ok(!JSON.stringify(row).includes(secret), 'the secret itself is not stored');
    assert.equal(row.expiresAt - row.createdAt, 7 * 24 * 60 * 60 * 1000);
  });

  it('refuses a bad address beside the field, an existing member as a conflict, and a post without the CSRF token; nothing changes', async () => {
    const owner = await person(app, 'owner');
    await owner.client.get(`/w/${owner.workspaceId}/members`);
    const bad = await owner.client.post(`/w/${owner.workspaceId}/invitations`, { email: 'not an address' });
    assert.equal(bad.status, 400);
    assert.match(bad.html, /id="field-email-error">&quot;not an address&quot; is not an e-mail address\.</);
    const self = await owner.client.post(`/w/${owner.workspaceId}/invitations`, { email: owner.email });
    assert.equal(self.status, 409);
    assert.equal(alertOf(self.html), `${owner.email} is already a member of My workspace.`);
    const forged = await owner.client.post(`/w/${owner.workspaceId}/invitations`, { email: 'csrf@example.com', _csrf: '' });
    assert.equal(forged.status, 403);
    assert.match(forged.html, /Change refused/);
    const rows = await app.ctx.database.db.selectFrom('invitations').select('id').where('workspaceId', '=', owner.workspaceId).execute();
    assert.deepEqual(rows, []);
  });

  it('counts pending invitations in the 5-member limit: the 6th is refused with the message; re-inviting replaces, revoking frees a seat', async () => {
    const owner = await person(app, 'owner');
    for (let i = 0; i < 3; i++) await app.ctx.workspaces.addMember(owner.workspaceId, (await person(app, 'member')).email);
    await invite(owner, 'fifth@example.com');
    const firstLink = await invitationPath(app, 'fifth@example.com');
    const emails = await emailCount(app);
    const sixth = await owner.client.post(`/w/${owner.workspaceId}/invitations`, { email: 'sixth@example.com' });
    assert.equal(sixth.status, 403);
    assert.equal(alertOf(sixth.html), 'A workspace on the Free plan has at most 5 team members, counting pending invitations.');
    assert.match(sixth.html, /value="sixth@example.com"/, 'the form keeps what was typed');
    assert.equal(await emailCount(app), emails, 'no email');
    // the CLI's add-member counts the pending invitation too
    const extra = await person(app, 'extra');
    await assert.rejects(app.ctx.workspaces.addMember(owner.workspaceId, extra.email), { code: 'quota_exceeded' });

    const again = await invite(owner, 'fifth@example.com');
    assert.equal(again.flash, 'A new invitation was sent to fifth@example.com; the earlier link no longer works');
    const page = await owner.client.get(`/w/${owner.workspaceId}/members`);
    assert.match(page.html, /5 of 5 members, counting pending invitations/, 'the same seat, not a second one');
    assert.equal((page.html.match(/fifth@example\.com<\/td>/g) ?? []).length, 1, 'listed once');
    const secondLink = await invitationPath(app, 'fifth@example.com');
    assert.notEqual(secondLink, firstLink);
    const visitor = await loggedIn(app, extra.email);
    assert.equal((await visitor.get(firstLink)).status, 410, 'the replaced link no longer works');

    const pending = await app.ctx.database.db
      .selectFrom('invitations')
      .select('id')
      .where('workspaceId', '=', owner.workspaceId)
      .where('revokedAt', 'is', null)
      .executeTakeFirstOrThrow();
    const revoked = await owner.client.post(`/w/${owner.workspaceId}/invitations/${pending.id}/revoke`, {});
    assert.equal(revoked.status, 303);
    const afterRevoke = await owner.client.get(`/w/${owner.workspaceId}/members`);
    assert.equal(flashOf(afterRevoke.html), 'Invitation to fifth@example.com revoked');
    assert.match(afterRevoke.html, /4 of 5 members, counting pending invitations/);
    assert.equal((await visitor.get(secondLink)).status, 410, 'a revoked link no longer works');
    await invite(owner, 'sixth@example.com');
  });

  it('lets only the invited address accept, once', async () => {
    const owner = await person(app, 'owner');
    const invited = await person(app, 'invited');
    const stranger = await person(app, 'stranger');
    await invite(owner, invited.email);
    const link = await invitationPath(app, invited.email);

    const wrong = await stranger.client.get(link);
    assert.equal(wrong.status, 200);
    assert.match(wrong.html, /This invitation is for another address/);
    assert.match(wrong.html, /Log out and continue/);
    const forced = await stranger.client.post(link, {});
    assert.equal(forced.status, 403);
    assert.match(forced.html, new RegExp(`This invitation is for ${invited.email}; you are logged in as ${stranger.email}\\.`));
    assert.deepEqual(await memberIds(app, owner.workspaceId), [owner.userId]);

    const page = await invited.client.get(link);
    assert.equal(page.status, 200);
    assert.match(page.html, /<h1>Join My workspace<\/h1>/);
    assert.match(page.html, new RegExp(`${owner.email} invited you`));
    const joined = await invited.client.post(link, {});
    assert.equal(joined.status, 303);
    assert.equal(joined.location, `/w/${owner.workspaceId}`);
    assert.equal(flashOf((await invited.client.get(joined.location)).html), 'You joined My workspace');
    assert.deepEqual(await memberIds(app, owner.workspaceId), [owner.userId, invited.userId].sort());
    const role = await app.ctx.team.roleOf(invited.userId, owner.workspaceId);
    assert.equal(role, 'member');

    const again = await invited.client.get(link);
    assert.equal(again.status, 410);
    assert.match(again.html, /This invitation has been used already: each link works once\./);
    assert.equal((await invited.client.post(link, {})).status, 410);
  });

  it('refuses an expired invitation, which no longer holds a seat', async () => {
    const owner = await person(app, 'owner');
    const invited = await person(app, 'late');
    await invite(owner, invited.email);
    const link = await invitationPath(app, invited.email);
    await app.ctx.database.db
      .updateTable('invitations')
      .set({ expiresAt: Date.now() - 1 })
      .where('workspaceId', '=', owner.workspaceId)
      .execute();
    const page = await invited.client.get(link);
    assert.equal(page.status, 410);
    assert.match(page.html, /This invitation has expired: invitations work for 7 days\./);
    assert.equal((await invited.client.post(link, {})).status, 410);
    await assert.rejects(app.ctx.invitations.accept(link.split('/').pop()!, { id: invited.userId, email: invited.email }), { code: 'conflict' });
    assert.deepEqual(await memberIds(app, owner.workspaceId), [owner.userId]);
    assert.match((await owner.client.get(`/w/${owner.workspaceId}/members`)).html, /1 of 5 members/);
  });

  it('answers an unknown link with 404', async () => {
    const visitor = await person(app, 'visitor');
    for (const path of [`/invitations/${'A'.repeat(43)}`, '/invitations/short']) {
      const page = await visitor.client.get(path);
      assert.equal(page.status, 404, path);
      assert.match(page.html, /This invitation link is not valid/);
    }
  });

  it('shows members the team but lets only owners invite, revoke and remove (403), changing nothing', async () => {
    const owner = await person(app, 'owner');
    const member = await person(app, 'member');
    const other = await person(app, 'other');
    await app.ctx.workspaces.addMember(owner.workspaceId, member.email);
    await app.ctx.workspaces.addMember(owner.workspaceId, other.email);
    await invite(owner, 'pending@example.com');
    const invitation = await app.ctx.database.db.selectFrom('invitations').select('id').where('workspaceId', '=', owner.workspaceId).executeTakeFirstOrThrow();

    const page = await member.client.get(`/w/${owner.workspaceId}/members`);
    assert.equal(page.status, 200);
    assert.match(page.html, new RegExp(`${owner.email}[\\s\\S]*${other.email}`));
    assert.match(page.html, /pending@example\.com/);
    assert.doesNotMatch(page.html, />Invite<|Revoke invitation|>Remove</);
    assert.match(page.html, new RegExp(`Only the workspace’s owners invite people\\. To add someone, ask ${owner.email}\\.`));

    const emails = await emailCount(app);
    const attempts = [
      await member.client.post(`/w/${owner.workspaceId}/invitations`, { email: 'sneaky@example.com' }),
      await member.client.post(`/w/${owner.workspaceId}/invitations/${invitation.id}/revoke`, {}),
      await member.client.get(`/w/${owner.workspaceId}/members/${other.userId}/remove`),
      await member.client.post(`/w/${owner.workspaceId}/members/${other.userId}/remove`, {}),
    ];
    for (const answer of attempts) {
      assert.equal(answer.status, 403);
      assert.match(answer.html, /Only the owners of My workspace can change its team\./);
    }
    assert.equal(await emailCount(app), emails);
    assert.equal((await app.ctx.invitations.listPending(owner.userId, owner.workspaceId)).length, 1);
    assert.equal((await memberIds(app, owner.workspaceId)).length, 3);

    // a stranger to the workspace gets 404, as for any workspace not theirs
    const stranger = await person(app, 'stranger');
    assert.equal((await stranger.client.get(`/w/${owner.workspaceId}/members`)).status, 404);
    assert.equal((await stranger.client.post(`/w/${owner.workspaceId}/invitations`, { email: 'x@example.com' })).status, 404);
  });

  it('removes a member after a confirmation naming them; their next request for the workspace is a 404; the creator cannot be removed', async () => {
    const owner = await person(app, 'owner');
    const member: Person = await person(app, 'leaving');
    await app.ctx.workspaces.addMember(owner.workspaceId, member.email);
    assert.equal((await member.client.get(`/w/${owner.workspaceId}`)).status, 200);

    const confirm = await owner.client.get(`/w/${owner.workspaceId}/members/${member.userId}/remove`);
    assert.equal(confirm.status, 200);
    assert.match(confirm.html, new RegExp(`<h1>Remove ${member.email}\\?</h1>`));
    assert.deepEqual(await memberIds(app, owner.workspaceId), [owner.userId, member.userId].sort(), 'the confirmation changes nothing');
    const removed = await owner.client.post(`/w/${owner.workspaceId}/members/${member.userId}/remove`, {});
    assert.equal(removed.status, 303);
    assert.equal(flashOf((await owner.client.get(removed.location!)).html), `${member.email} removed`);
    assert.deepEqual(await memberIds(app, owner.workspaceId), [owner.userId]);

    for (const path of [`/w/${owner.workspaceId}`, `/w/${owner.workspaceId}/members`]) {
      assert.equal((await member.client.get(path)).status, 404, path);
    }
    const creator = await owner.client.post(`/w/${owner.workspaceId}/members/${owner.userId}/remove`, {});
    assert.equal(creator.status, 409);
    assert.match(creator.html, /created My workspace and cannot be removed from it/);
  });

  it('lets a member leave after a confirmation, then sends them home; the creator cannot leave', async () => {
    const owner = await person(app, 'owner');
    const member = await person(app, 'quitter');
    await app.ctx.workspaces.addMember(owner.workspaceId, member.email);
    assert.match((await member.client.get(`/w/${owner.workspaceId}/members`)).html, /Leave workspace/);
    const confirm = await member.client.get(`/w/${owner.workspaceId}/leave`);
    assert.equal(confirm.status, 200);
    assert.match(confirm.html, /<h1>Leave My workspace\?<\/h1>/);
    const left = await member.client.post(`/w/${owner.workspaceId}/leave`, {});
    assert.equal(left.status, 303);
    assert.equal(left.location, '/');
    assert.deepEqual(await memberIds(app, owner.workspaceId), [owner.userId]);
    const home = await member.client.get('/');
    assert.equal(home.location, `/w/${member.workspaceId}`, 'back to a workspace of their own');
    assert.equal(flashOf((await member.client.get(home.location!)).html), 'You left My workspace');
    assert.equal((await member.client.get(`/w/${owner.workspaceId}`)).status, 404);

    assert.doesNotMatch((await owner.client.get(`/w/${owner.workspaceId}/members`)).html, /Leave workspace/);
    for (const answer of [await owner.client.get(`/w/${owner.workspaceId}/leave`), await owner.client.post(`/w/${owner.workspaceId}/leave`, {})]) {
      assert.equal(answer.status, 409);
      assert.match(answer.html, /You created My workspace, so you cannot leave it/);
    }
  });

  it('sends at most 20 invitations a workspace an hour (each one is an email): the next is refused with when to try again', async () => {
    const owner = await person(app, 'sender');
    await app.ctx.workspaces.setPlan(owner.workspaceId, 'BUNDLE_50000', { tellOwners: false });
    for (let i = 0; i < INVITATIONS_PER_HOUR; i++) await invite(owner, `guest-${i}@example.com`);
    const emails = await emailCount(app);
    const refused = await owner.client.post(`/w/${owner.workspaceId}/invitations`, { email: 'one-more@example.com' });
    assert.equal(refused.status, 429);
    assert.match(alertOf(refused.html) ?? '', /^A workspace can send at most 20 invitations an hour; try again in 60 minutes\.$/);
    assert.ok(Number(refused.headers.get('retry-after')) > 3500);
    assertRefusedBy(refused, INVITATIONS_PER_HOUR);
    assert.equal(await emailCount(app), emails, 'no email');
    const rows = await app.ctx.database.db.selectFrom('invitations').select('id').where('email', '=', 'one-more@example.com').execute();
    assert.deepEqual(rows, []);
  });
});
