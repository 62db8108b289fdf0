import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AUTOMATION_KEY_SCOPES, KEYS_PER_WORKSPACE } from '../../src/domain/hooks.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { assertJson, assertProblem } from '../helpers/problems.js';
import { postJson } from '../helpers/submit.js';
import { insertSubmissionWithFiles } from '../helpers/submission-files.js';

/** Issue 42, item 1: the spec's automation-tool key, one workspace's, accepted where a token is. */
describe(`automation-tool keys (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let owner: Account;
  let member: Account;
  let form: any;
  let elsewhere: any;
  let secondWorkspace: string;
  let key: string;

  before(async () => {
    app = await startApp();
    owner = await createAccount(app);
    member = await createAccount(app);
    await app.ctx.database.db
      .insertInto('workspaceMembers')
      .values({ workspaceId: owner.workspaceId, userId: member.userId, role: 'member', createdAt: Date.now() })
      .execute();
    form = await createForm(app, owner, { name: 'Contact' });
    const second = await app.ctx.workspaces.createWorkspace(owner.userId, 'Second');
    secondWorkspace = second.id;
    await app.ctx.workspaces.setPlan(second.id, 'BUNDLE_50000', { tellOwners: false });
    elsewhere = await createForm(app, owner, { name: 'Elsewhere', workspaceId: second.id });
    ({ secret: key } = await app.ctx.automationKeys.create(owner.userId, owner.workspaceId, 'Zapier'));
  });
  after(() => app.close());

  it('is shown once, and answers GET /me as a token named after it with the automation scopes', async () => {
    assert.match(key, /^fgak_[A-Za-z0-9_-]{43}$/);
    const stored = await app.ctx.database.db.selectFrom('automationKeys').selectAll().execute();
    assert.ok(
      stored.every((row) => !Object.values(row).includes(key)),
      'only its hash is kept',
    );
    const me = await app.api('GET', '/me', { token: key });
    assertJson(me, 200);
    assert.equal(me.body.name, 'Zapier');
    assert.deepEqual(me.body.scopes, [...AUTOMATION_KEY_SCOPES]);
  });

  it('reaches its own workspace only: the rest is 404, and what its scopes do not cover is 403', async () => {
    const workspaces = await app.api('GET', '/workspaces', { token: key });
    assert.deepEqual(
      workspaces.body.data.map((w: any) => w.id),
      [owner.workspaceId],
    );
    assert.equal((await app.api('GET', '/workspaces', { token: owner.token })).body.data.length, 2, 'the account’s token reaches both');
    assertJson(await app.api('GET', `/forms?workspaceId=${owner.workspaceId}`, { token: key }), 200);
    assertProblem(app, await app.api('GET', `/forms?workspaceId=${secondWorkspace}`, { token: key }), 'not_found');
    assertJson(await app.api('GET', `/forms/${form.id}`, { token: key }), 200);
    assertProblem(app, await app.api('GET', `/forms/${elsewhere.id}`, { token: key }), 'not_found');
    assertProblem(app, await app.api('GET', `/forms/${elsewhere.id}/submissions`, { token: key }), 'not_found');
    assertProblem(app, await app.api('GET', `/workspaces/${secondWorkspace}/submissions`, { token: key }), 'not_found');
    const there = await postJson(app, elsewhere.id, { message: 'elsewhere' });
    const here = await postJson(app, form.id, { message: 'here' });
    assertProblem(app, await app.api('DELETE', `/submissions/${there.body.id}`, { token: key }), 'not_found');
    assertProblem(app, await app.api('GET', `/submissions/${there.body.id}/triage`, { token: key }), 'not_found');
    assert.equal((await app.api('DELETE', `/submissions/${here.body.id}`, { token: key })).status, 204);
    assertProblem(app, await app.api('POST', '/forms', { token: key, body: { workspaceId: owner.workspaceId, name: 'New' } }), 'insufficient_scope', {
      requiredScope: 'forms:write',
    });
    assertProblem(
      app,
      await app.api('POST', '/hooks', { token: key, body: { targetUrl: 'https://example.com/h', event: 'submission.created', formId: elsewhere.id } }),
      'not_found',
    );
    const hook = await app.api('POST', '/hooks', { token: key, body: { targetUrl: 'https://example.com/h', event: 'submission.created' } });
    assertJson(hook, 201);
    assert.equal(hook.body.workspaceId, owner.workspaceId, 'a key needs no workspaceId: it has one');
    const elsewhereHook = await app.api('POST', '/hooks', {
      token: owner.token,
      body: { targetUrl: 'https://example.com/e', event: 'submission.created', formId: elsewhere.id },
    });
    assertProblem(app, await app.api('DELETE', `/hooks/${elsewhereHook.body.id}`, { token: key }), 'not_found');
    assert.deepEqual(
      (await app.api('GET', '/hooks', { token: key })).body.data.map((h: any) => h.id),
      [hook.body.id],
    );
    assertJson(await app.api('GET', '/hooks/samples/submission.created', { token: key }), 200);
    const pdf = [{ field: 'cv', name: 'cv.pdf', type: 'application/pdf', bytes: '%PDF-1.7' }];
    const [fileHere] = (await insertSubmissionWithFiles(app, form, pdf)).files;
    const [fileThere] = (await insertSubmissionWithFiles(app, elsewhere, pdf)).files;
    assert.equal((await app.api('GET', `/files/${fileHere!.id}`, { token: key })).status, 200);
    assertProblem(app, await app.api('GET', `/files/${fileThere!.id}`, { token: key }), 'not_found');
    assertProblem(app, await app.api('GET', `/hooks/samples/submission.created?formId=${elsewhere.id}`, { token: key }), 'not_found');
  });

  it('is made and revoked by owners only; revoking it removes its subscriptions and it stops working', async () => {
    await assert.rejects(app.ctx.automationKeys.create(member.userId, owner.workspaceId, 'Mine'), { code: 'forbidden' });
    await assert.rejects(app.ctx.automationKeys.create(owner.userId, owner.workspaceId, 'zapier'), { code: 'conflict' });
    const { key: made, secret } = await app.ctx.automationKeys.create(owner.userId, owner.workspaceId, 'Make');
    const hook = await app.api('POST', '/hooks', { token: secret, body: { targetUrl: 'https://example.com/m', event: 'submission.spam', formId: form.id } });
    assertJson(hook, 201);
    await assert.rejects(app.ctx.automationKeys.revoke(member.userId, owner.workspaceId, made.id), { code: 'forbidden' });
    const revoked = await app.ctx.automationKeys.revoke(owner.userId, owner.workspaceId, made.id);
    assert.equal(revoked.hooksRemoved, 1);
    assert.equal(await app.ctx.database.db.selectFrom('hooks').select('id').where('id', '=', hook.body.id).executeTakeFirst(), undefined);
    assertProblem(app, await app.api('GET', '/me', { token: secret }), 'invalid_token');
    assert.equal((await app.ctx.automationKeys.revoke(owner.userId, owner.workspaceId, made.id)).hooksRemoved, 0, 'a second revoke changes nothing');
    await assert.rejects(app.ctx.automationKeys.revoke(owner.userId, secondWorkspace, made.id), { code: 'not_found' });
  });

  it('stops working when the member who made it leaves; a workspace holds a bounded number', async () => {
    await app.ctx.database.db.updateTable('workspaceMembers').set({ role: 'owner' }).where('userId', '=', member.userId).execute();
    const { secret } = await app.ctx.automationKeys.create(member.userId, owner.workspaceId, 'n8n');
    assertJson(await app.api('GET', '/me', { token: secret }), 200);
    await app.ctx.database.db.deleteFrom('workspaceMembers').where('userId', '=', member.userId).where('workspaceId', '=', owner.workspaceId).execute();
    const refused = await app.api('GET', '/me', { token: secret });
    assertProblem(app, refused, 'invalid_token');
    assert.match(refused.body.detail, /left its workspace/);
    const active = (await app.ctx.automationKeys.list(owner.userId, owner.workspaceId)).filter((k) => k.revokedAt === null).length;
    for (let i = active; i < KEYS_PER_WORKSPACE; i++) await app.ctx.automationKeys.create(owner.userId, owner.workspaceId, `key ${i}`);
    await assert.rejects(app.ctx.automationKeys.create(owner.userId, owner.workspaceId, 'one too many'), { code: 'conflict' });
  });
});
