import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { flashOf, person } from '../helpers/members.js';

/**
 * Issue 41, item 6: on the workspace's settings page, each member chooses for themselves whether
 * they get the daily email of the open submissions assigned to them; off until they tick it.
 */
describe(`dashboard: the setting of the digest of what is assigned to me (${TEST_DIALECT})`, () => {
  let app: TestApp;

  before(async () => {
    app = await startApp();
  });
  after(async () => {
    await app?.close();
  });

  it('is off by default, saved by its own form for this member only, refused without the CSRF token or from outside', async () => {
    const owner = await person(app, 'assigned-setting');
    const member = await person(app, 'assigned-setting-member');
    await app.ctx.workspaces.setPlan(owner.workspaceId, 'BUNDLE_50000', { tellOwners: false });
    await app.ctx.workspaces.addMember(owner.workspaceId, member.email);
    const settings = `/w/${owner.workspaceId}/settings`;
    const page = await owner.client.get(settings);
    assert.match(page.html, /<h2[^>]*>Assigned to you<\/h2>/);
    assert.match(page.html, /<form method="post" action="[^"]+\/settings\/assigned-digest"/);
    assert.match(page.html, /<input id="field-assigned-digest" type="checkbox" name="mine" value="on" aria-describedby/, 'unticked');
    assert.match(page.html, /<label for="field-assigned-digest">Daily email of the open submissions assigned to me<\/label>/);

    const saved = await owner.client.post(`${settings}/assigned-digest`, { mine: 'on' });
    assert.equal(saved.status, 303);
    assert.equal(saved.location, `${settings}#assigned-digest`);
    const after = await owner.client.get(settings);
    assert.equal(flashOf(after.html), 'You will get a daily email of the open submissions assigned to you');
    assert.match(after.html, /id="field-assigned-digest" type="checkbox" name="mine" value="on" checked/);
    assert.deepEqual(await app.ctx.assignedDigests.settings(owner.userId, owner.workspaceId), { mine: true });
    assert.deepEqual(await app.ctx.assignedDigests.settings(member.userId, owner.workspaceId), { mine: false }, 'the other member’s own choice');
    assert.deepEqual(await app.ctx.spamDigests.settings(owner.userId, owner.workspaceId), { frequency: 'daily', mine: true }, 'the spam digest untouched');

    const forged = await owner.client.post(`${settings}/assigned-digest`, { _csrf: 'forged' });
    assert.equal(forged.status, 403);
    const stranger = await person(app, 'assigned-setting-stranger');
    const foreign = await stranger.client.post(`${settings}/assigned-digest`, {});
    assert.equal(foreign.status, 404);
    assert.deepEqual(await app.ctx.assignedDigests.settings(owner.userId, owner.workspaceId), { mine: true }, 'neither changed it');

    // unticked: the checkbox is absent from the post
    const off = await owner.client.post(`${settings}/assigned-digest`, {});
    assert.equal(off.status, 303);
    assert.equal(flashOf((await owner.client.get(settings)).html), 'No more daily email of what is assigned to you');
    assert.deepEqual(await app.ctx.assignedDigests.settings(owner.userId, owner.workspaceId), { mine: false });
  });
});
