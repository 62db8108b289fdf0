import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { assertAuthMatrix } from '../helpers/auth-matrix.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { createAccount, createForm, createToken, type Account } from '../helpers/fixtures.js';
import { assertJson, assertProblem, assertValidation } from '../helpers/problems.js';

/** Issue 43, item 4: GET /workspaces/{workspaceId}/audit-events, for the workspace's owners' tokens. */
describe(`the audit events of the API (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let owner: Account;
  let stranger: Account;
  let form: any;
  const list = (query = '', token = owner.token, workspaceId = owner.workspaceId) =>
    app.api('GET', `/workspaces/${workspaceId}/audit-events${query}`, { token });

  before(async () => {
    app = await startApp({ metrics: 'on' });
    owner = await createAccount(app);
    stranger = await createAccount(app);
    form = await createForm(app, owner, { name: 'Contact' });
    for (const name of ['One', 'Two', 'Three']) assert.equal((await app.api('PATCH', `/forms/${form.id}`, { token: owner.token, body: { name } })).status, 200);
  });
  after(() => app.close());

  it('lists the workspace’s events newest first, each whole, and pages them with a cursor', async () => {
    const first = await list('?limit=2');
    assertJson(first, 200);
    assert.equal(first.body.hasMore, true);
    const [newest] = first.body.data;
    assert.deepEqual(Object.keys(newest).sort(), [
      'action',
      'actorEmail',
      'actorUserId',
      'createdAt',
      'details',
      'group',
      'id',
      'ip',
      'target',
      'userAgent',
      'via',
      'workspaceId',
    ]);
    assert.deepEqual(
      { action: newest.action, group: newest.group, via: newest.via, actorEmail: newest.actorEmail, actorUserId: newest.actorUserId, ip: newest.ip },
      { action: 'form.updated', group: 'form', via: 'api', actorEmail: owner.email, actorUserId: owner.userId, ip: '127.0.0.1' },
    );
    assert.deepEqual(newest.target, { kind: 'form', id: form.id, name: 'Three' });
    assert.deepEqual(newest.details, { changed: ['name'] });
    const rest = await list(`?limit=100&startingAfter=${encodeURIComponent(first.body.nextCursor)}`);
    assertJson(rest, 200);
    const all = [...first.body.data, ...rest.body.data];
    assert.equal(rest.body.hasMore, false);
    assert.equal(new Set(all.map((e: any) => e.id)).size, all.length, 'no event twice');
    const times = all.map((e: any) => Date.parse(e.createdAt));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
      'newest first',
    );
    assert.ok(all.every((e: any) => e.workspaceId === owner.workspaceId));
  });

  it('filters by group, actor and time range', async () => {
    const forms = await list('?group=form&limit=100');
    assert.deepEqual(
      forms.body.data.map((e: any) => e.action),
      ['form.updated', 'form.updated', 'form.updated', 'form.created'],
    );
    assert.equal((await list(`?actor=${encodeURIComponent(owner.email.toUpperCase())}&limit=100`)).body.data.length, 4, 'the address as typed, any case');
    assert.deepEqual((await list('?actor=nobody%40example.com')).body.data, []);
    const created = forms.body.data.at(-1).createdAt;
    const since = await list(`?group=form&from=${encodeURIComponent(created)}&to=${encodeURIComponent(new Date(Date.parse(created) + 1).toISOString())}`);
    assert.deepEqual(
      since.body.data.map((e: any) => e.action),
      ['form.created'],
    );
  });

  it('refuses a bad filter with the field it names', async () => {
    assertValidation(app, await list('?group=passwords'), 'group');
    assertValidation(app, await list('?actor=not-an-address'), 'actor');
    assertValidation(app, await list('?from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z'), 'to');
    assertValidation(app, await list('?from=yesterday'), 'from');
    assertValidation(app, await list('?startingAfter=forged'), 'startingAfter');
  });

  it('is for the workspace’s owners: a member is forbidden, another account finds nothing, a free workspace needs an upgrade', async () => {
    await app.ctx.workspaces.addMember(owner.workspaceId, stranger.email);
    assertProblem(app, await list('', stranger.token), 'forbidden');
    await app.ctx.team.removeMember(owner.userId, owner.workspaceId, stranger.userId);
    assertProblem(app, await list('', stranger.token), 'not_found');
    const free = await createAccount(app, { plan: 'FREE' });
    assertProblem(app, await list('', free.token, free.workspaceId), 'upgrade_required');
  });

  it('is never an automation-tool key’s, even its own workspace’s', async () => {
    const { secret } = await app.ctx.automationKeys.create(owner.userId, owner.workspaceId, 'Zapier');
    const refused = await list('', secret);
    assertProblem(app, refused, 'forbidden');
    assert.match(refused.body.detail, /automation-tool key cannot read the audit log/);
  });

  it('needs workspaces:read', async () => {
    await assertAuthMatrix(app, owner, { method: 'GET', path: `/workspaces/${owner.workspaceId}/audit-events`, scope: 'workspaces:read' });
    const narrow = await createToken(app, owner.userId, ['workspaces:read']);
    assertJson(await list('', narrow), 200);
  });

  it('counts what it records on /metrics, by group', async () => {
    const metrics = await app.fetch('GET', `${app.publicUrl}/metrics`);
    assert.equal(metrics.status, 200);
    assert.match(metrics.body, /^formgate_audit_events_total\{group="form"\} [1-9]\d*$/m);
    assert.match(metrics.body, /^formgate_audit_events_total\{group="token"\} [1-9]\d*$/m);
  });
});
