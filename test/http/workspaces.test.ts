import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { WorkspaceRow } from '../../src/db/schema/workspace.js';
import { newId } from '../../src/ids.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { assertAuthMatrix } from '../helpers/auth-matrix.js';
import { createAccount, type Account } from '../helpers/fixtures.js';
import { walkPages } from '../helpers/pagination.js';
import { assertJson, assertProblem, assertSameNotFound, assertValidation } from '../helpers/problems.js';

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('workspaces API', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp();
  });
  after(() => app.close());

  async function row(id: string): Promise<WorkspaceRow> {
    return app.ctx.database.db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  }

  async function setTimes(id: string, createdAt: number, updatedAt = createdAt): Promise<void> {
    await app.ctx.database.db.updateTable('workspaces').set({ createdAt, updatedAt }).where('id', '=', id).execute();
  }

  function assertDateTime(value: unknown, field: string): void {
    assert.equal(typeof value, 'string', `${field} is a string`);
    assert.match(value as string, ISO_DATE_TIME, `${field} is an ISO 8601 date-time`);
    assert.equal(new Date(value as string).toISOString(), value, `${field} is a valid date-time`);
  }

  /** Asserts the whole Workspace resource (2.2) against the stored row; `quota` is the expected submissionsQuota. */
  async function assertWorkspace(body: any, id: string, quota: number): Promise<void> {
    const stored = await row(id);
    assertDateTime(body.createdAt, 'createdAt');
    assertDateTime(body.updatedAt, 'updatedAt');
    assert.deepEqual(body, {
      id,
      name: stored.name,
      plan: stored.plan,
      submissionsQuota: quota,
      createdAt: new Date(stored.createdAt).toISOString(),
      updatedAt: new Date(stored.updatedAt).toISOString(),
    });
  }

  async function listIds(account: Account): Promise<string[]> {
    const answer = await app.api('GET', '/workspaces?limit=100', { token: account.token });
    assertJson(answer, 200);
    return answer.body.data.map((w: any) => w.id);
  }

  /** An account allowed to create a workspace: its own one is upgraded and it owns no FREE one. */
  const creator = () => createAccount(app);

  describe('GET /workspaces', () => {
    it('lists every workspace the account belongs to, newest first, every field present', async () => {
      const account = await createAccount(app);
      const other = await createAccount(app, { plan: 'FREE' });
      const stranger = await createAccount(app);
      await app.ctx.database.db.updateTable('workspaces').set({ submissionsUsed: 120 }).where('id', '=', account.workspaceId).execute();
      await app.ctx.database.db.updateTable('workspaces').set({ submissionsUsed: 40 }).where('id', '=', other.workspaceId).execute();

      const second = await app.api('POST', '/workspaces', { token: account.token, body: { name: 'Second' } });
      assertJson(second, 201);
      await app.ctx.workspaces.setPlan(second.body.id, 'DEALIFY');
      const third = await app.api('POST', '/workspaces', { token: account.token, body: { name: 'Third' } });
      assertJson(third, 201);
      await app.ctx.workspaces.addMember(other.workspaceId, account.email);

      // distinct creation times; the oldest one was updated last, so an order by updatedAt would show
      const t = Date.now() - 100_000;
      await setTimes(account.workspaceId, t, t + 50_000);
      await setTimes(second.body.id, t + 1000);
      await setTimes(other.workspaceId, t + 2000);
      await setTimes(third.body.id, t + 3000);

      const answer = await app.api('GET', '/workspaces', { token: account.token });
      assertJson(answer, 200);
      assert.deepEqual(Object.keys(answer.body).sort(), ['data', 'hasMore', 'nextCursor']);
      assert.equal(answer.body.hasMore, false);
      assert.equal(answer.body.nextCursor, null);
      assert.deepEqual(
        answer.body.data.map((w: any) => w.id),
        [third.body.id, other.workspaceId, second.body.id, account.workspaceId],
      );
      const [t3, shared, s2, own] = answer.body.data;
      await assertWorkspace(t3, third.body.id, 250);
      await assertWorkspace(shared, other.workspaceId, 210);
      await assertWorkspace(s2, second.body.id, 50_000);
      await assertWorkspace(own, account.workspaceId, 49_880);
      assert.equal(own.name, 'My workspace');
      assert.equal(own.plan, 'BUNDLE_50000');
      assert.equal(s2.plan, 'DEALIFY');
      assert.equal(t3.plan, 'FREE');
      assert.ok(!answer.body.data.some((w: any) => w.id === stranger.workspaceId));
    });

    it('works for an account whose only workspace is free', async () => {
      const account = await createAccount(app, { plan: 'FREE' });
      const answer = await app.api('GET', '/workspaces', { token: account.token });
      assertJson(answer, 200);
      assert.equal(answer.body.data.length, 1);
      await assertWorkspace(answer.body.data[0], account.workspaceId, 250);
      assert.equal(answer.body.data[0].plan, 'FREE');
      assert.equal(answer.body.hasMore, false);
      assert.equal(answer.body.nextCursor, null);
    });

    it('never lists the workspaces of another account', async () => {
      const a = await createAccount(app);
      const b = await createAccount(app);
      assert.deepEqual(await listIds(a), [a.workspaceId]);
      assert.deepEqual(await listIds(b), [b.workspaceId]);
    });

    it('shows a workspace to a member added to its team, with the member’s own token', async () => {
      const owner = await createAccount(app);
      const member = await createAccount(app, { plan: 'FREE' });
      assert.ok(!(await listIds(member)).includes(owner.workspaceId));
      await app.ctx.workspaces.addMember(owner.workspaceId, member.email);
      const answer = await app.api('GET', '/workspaces', { token: member.token });
      assertJson(answer, 200);
      const shared = answer.body.data.find((w: any) => w.id === owner.workspaceId);
      assert.ok(shared, 'the shared workspace is listed');
      await assertWorkspace(shared, owner.workspaceId, 50_000);
      assert.deepEqual(answer.body.data.map((w: any) => w.id).sort(), [owner.workspaceId, member.workspaceId].sort());
    });

    it('pages 25 by default and continues with nextCursor, each workspace once, newest first', async () => {
      const account = await createAccount(app);
      const base = Date.now() - 1_000_000;
      await setTimes(account.workspaceId, base);
      // 29 more, several sharing a creation time, so the order needs its tie-break across pages
      for (let i = 1; i < 30; i++) {
        const id = newId();
        const createdAt = base + Math.floor((i + 2) / 3) * 1000;
        await app.ctx.database.db
          .insertInto('workspaces')
          .values({ id, name: `W${i}`, plan: 'BUNDLE_50000', ownerId: account.userId, submissionsUsed: 0, createdAt, updatedAt: createdAt })
          .execute();
        await app.ctx.database.db.insertInto('workspaceMembers').values({ workspaceId: id, userId: account.userId, role: 'owner', createdAt }).execute();
      }

      const first = await app.api('GET', '/workspaces', { token: account.token });
      assertJson(first, 200);
      assert.equal(first.body.data.length, 25);
      assert.equal(first.body.hasMore, true);
      assert.equal(typeof first.body.nextCursor, 'string');
      const second = await app.api('GET', `/workspaces?startingAfter=${encodeURIComponent(first.body.nextCursor)}`, { token: account.token });
      assertJson(second, 200);
      assert.equal(second.body.data.length, 5);
      assert.equal(second.body.hasMore, false);
      assert.equal(second.body.nextCursor, null);

      const all = [...first.body.data, ...second.body.data];
      assert.equal(new Set(all.map((w: any) => w.id)).size, 30);
      for (let i = 1; i < all.length; i++) assert.ok(Date.parse(all[i - 1].createdAt) >= Date.parse(all[i].createdAt), 'newest first');
      assert.equal(all[29].id, account.workspaceId);

      const whole = await app.api('GET', '/workspaces?limit=100', { token: account.token });
      assertJson(whole, 200);
      assert.deepEqual(
        whole.body.data.map((w: any) => w.id),
        all.map((w: any) => w.id),
      );
      assert.equal(whole.body.hasMore, false);
      assert.equal(whole.body.nextCursor, null);

      // limit 7: pages of 7, 7, 7, 7, 2 in the same order
      const { ids: walked, pages } = await walkPages(app, account.token, '/workspaces', 7);
      assert.equal(pages, 5);
      assert.deepEqual(
        walked,
        all.map((w: any) => w.id),
      );
    });

    it('accepts limit 1 and 100', async () => {
      const account = await createAccount(app);
      await app.ctx.workspaces.addMember((await createAccount(app)).workspaceId, account.email);
      const one = await app.api('GET', '/workspaces?limit=1', { token: account.token });
      assertJson(one, 200);
      assert.equal(one.body.data.length, 1);
      assert.equal(one.body.hasMore, true);
      const hundred = await app.api('GET', '/workspaces?limit=100', { token: account.token });
      assertJson(hundred, 200);
      assert.equal(hundred.body.data.length, 2);
      assert.equal(hundred.body.hasMore, false);
    });

    it('refuses a limit outside 1..100 or not an integer', async () => {
      const account = await createAccount(app);
      for (const limit of ['0', '101', '-1', 'abc', '1.5']) {
        assertValidation(app, await app.api('GET', `/workspaces?limit=${limit}`, { token: account.token }), 'limit');
      }
    });

    it('ignores query parameters it does not know (a cache-busting _=), and still refuses a bad limit', async () => {
      const account = await createAccount(app);
      const answer = await app.api('GET', '/workspaces?_=1732612345678&limit=1&callback=x', { token: account.token });
      assertJson(answer, 200);
      assert.deepEqual(
        answer.body.data.map((workspace: any) => workspace.id),
        [account.workspaceId],
      );
      assertValidation(app, await app.api('GET', '/workspaces?_=1&limit=0', { token: account.token }), 'limit');
    });

    it('refuses a cursor it did not issue, a modified one, and one built from an id', async () => {
      const account = await createAccount(app);
      await app.ctx.workspaces.addMember((await createAccount(app)).workspaceId, account.email);
      const page = await app.api('GET', '/workspaces?limit=1', { token: account.token });
      const cursor: string = page.body.nextCursor;
      assert.equal(typeof cursor, 'string');
      const flipped = cursor.slice(0, -1) + (cursor.endsWith('A') ? 'B' : 'A');
      const payloadChanged = (cursor[0] === 'M' ? 'N' : 'M') + cursor.slice(1);
      for (const bad of [flipped, payloadChanged, 'abc', account.workspaceId, Buffer.from(`${Date.now()}.${account.workspaceId}`).toString('base64url')]) {
        assertValidation(app, await app.api('GET', `/workspaces?startingAfter=${encodeURIComponent(bad)}`, { token: account.token }), 'startingAfter');
      }
      // the issued cursor itself is accepted
      assertJson(await app.api('GET', `/workspaces?startingAfter=${encodeURIComponent(cursor)}`, { token: account.token }), 200);
    });

    it('answers the auth matrix (workspaces:read)', async () => {
      const account = await createAccount(app);
      await assertAuthMatrix(app, account, { method: 'GET', path: '/workspaces', scope: 'workspaces:read' });
    });
  });

  describe('POST /workspaces', () => {
    it('creates a FREE workspace for an account that belongs to an upgraded one', async () => {
      const account = await creator();
      const before = Date.now();
      const answer = await app.api('POST', '/workspaces', { token: account.token, body: { name: 'Client sites' } });
      assertJson(answer, 201);
      await assertWorkspace(answer.body, answer.body.id, 250);
      assert.equal(typeof answer.body.id, 'string');
      assert.ok(answer.body.id.length > 0);
      assert.notEqual(answer.body.id, account.workspaceId);
      assert.equal(answer.body.name, 'Client sites');
      assert.equal(answer.body.plan, 'FREE');
      assert.equal(answer.body.submissionsQuota, 250);
      assert.equal(answer.body.createdAt, answer.body.updatedAt);
      assert.ok(Date.parse(answer.body.createdAt) >= before - 1 && Date.parse(answer.body.createdAt) <= Date.now());

      // the account owns it and sees it first in its list
      const stored = await row(answer.body.id);
      assert.equal(stored.ownerId, account.userId);
      const list = await app.api('GET', '/workspaces', { token: account.token });
      assert.deepEqual(list.body.data[0], answer.body);
    });

    it('refuses a second one while the account owns a FREE workspace (quota_exceeded); upgrading it lifts that', async () => {
      const account = await creator();
      const first = await app.api('POST', '/workspaces', { token: account.token, body: { name: 'One' } });
      assertJson(first, 201);
      const second = await app.api('POST', '/workspaces', { token: account.token, body: { name: 'Two' } });
      assertProblem(app, second, 'quota_exceeded');
      assert.deepEqual((await listIds(account)).sort(), [account.workspaceId, first.body.id].sort());

      await app.ctx.workspaces.setPlan(first.body.id, 'BUNDLE_50000');
      const third = await app.api('POST', '/workspaces', { token: account.token, body: { name: 'Three' } });
      assertJson(third, 201);
      assert.equal(third.body.plan, 'FREE');
    });

    it('keeps one FREE workspace per account under concurrent requests', async () => {
      // three rounds of eight simultaneous requests: exactly one may create the account's FREE workspace
      for (let round = 0; round < 3; round++) {
        const account = await creator();
        const answers = await Promise.all(
          Array.from({ length: 8 }, (_, i) => app.api('POST', '/workspaces', { token: account.token, body: { name: `Race ${i}` } })),
        );
        const created = answers.filter((a) => a.status === 201);
        assert.equal(created.length, 1, `exactly one is created, got ${answers.map((a) => a.status).join(' ')}`);
        for (const answer of answers.filter((a) => a.status !== 201)) assertProblem(app, answer, 'quota_exceeded');
        const owned = await app.ctx.database.db
          .selectFrom('workspaces')
          .select('id')
          .where('ownerId', '=', account.userId)
          .where('plan', '=', 'FREE')
          .execute();
        assert.deepEqual(
          owned.map((w) => w.id),
          [created[0]!.body.id],
        );
      }
    });

    it('answers upgrade_required naming the account’s free workspace when it belongs to no upgraded one', async () => {
      const account = await createAccount(app, { plan: 'FREE' });
      const answer = await app.api('POST', '/workspaces', { token: account.token, body: { name: 'Another' } });
      assertProblem(app, answer, 'upgrade_required', { workspaceId: account.workspaceId });
      assert.deepEqual(await listIds(account), [account.workspaceId]);
    });

    it('names the account’s own free workspace, not an older free one it is only a member of', async () => {
      const older = await createAccount(app, { plan: 'FREE' });
      const account = await createAccount(app, { plan: 'FREE' });
      await setTimes(older.workspaceId, Date.now() - 100_000);
      await app.ctx.workspaces.addMember(older.workspaceId, account.email);
      const answer = await app.api('POST', '/workspaces', { token: account.token, body: { name: 'Another' } });
      assertProblem(app, answer, 'upgrade_required', { workspaceId: account.workspaceId });
    });

    it('refuses a member of an upgraded workspace whose own workspace is FREE (quota_exceeded)', async () => {
      const owner = await createAccount(app);
      const account = await createAccount(app, { plan: 'FREE' });
      await app.ctx.workspaces.addMember(owner.workspaceId, account.email);
      const answer = await app.api('POST', '/workspaces', { token: account.token, body: { name: 'Another' } });
      assertProblem(app, answer, 'quota_exceeded');
      assert.deepEqual((await listIds(account)).sort(), [owner.workspaceId, account.workspaceId].sort());
    });

    it('does not count a FREE workspace the account only belongs to as a member', async () => {
      const account = await creator();
      const other = await createAccount(app, { plan: 'FREE' });
      await app.ctx.workspaces.addMember(other.workspaceId, account.email);
      const answer = await app.api('POST', '/workspaces', { token: account.token, body: { name: 'Mine' } });
      assertJson(answer, 201);
      assert.equal(answer.body.plan, 'FREE');
    });

    it('accepts a name of 1 and of 128 characters', async () => {
      for (const name of ['x', 'n'.repeat(128), '😀'.repeat(128)]) {
        const account = await creator();
        const answer = await app.api('POST', '/workspaces', { token: account.token, body: { name } });
        assertJson(answer, 201);
        assert.equal(answer.body.name, name);
        assert.equal((await row(answer.body.id)).name, name);
      }
    });

    it('refuses an empty name, one of 129 characters, and a missing one', async () => {
      const account = await creator();
      for (const body of [{ name: '' }, { name: 'n'.repeat(129) }, { name: '😀'.repeat(129) }, {}]) {
        assertValidation(app, await app.api('POST', '/workspaces', { token: account.token, body }), 'name');
      }
      assert.deepEqual(await listIds(account), [account.workspaceId]);
    });

    it('refuses a name of the wrong type', async () => {
      const account = await creator();
      for (const name of [null, 42, true, ['a'], { a: 1 }]) {
        assertValidation(app, await app.api('POST', '/workspaces', { token: account.token, body: { name } }), 'name');
      }
      assert.deepEqual(await listIds(account), [account.workspaceId]);
    });

    it('refuses unknown body fields, such as a plan', async () => {
      const account = await creator();
      for (const field of ['plan', 'submissionsQuota', 'id', 'ownerId', 'color']) {
        const answer = await app.api('POST', '/workspaces', { token: account.token, body: { name: 'Paid?', [field]: 'DEALIFY' } });
        assertValidation(app, answer, field);
      }
      assert.deepEqual(await listIds(account), [account.workspaceId]);
    });

    it('refuses a body that is not a JSON object', async () => {
      const account = await creator();
      assertProblem(app, await app.api('POST', '/workspaces', { token: account.token, body: ['name'] }), 'validation_error');
      assertProblem(
        app,
        await app.api('POST', '/workspaces', { token: account.token, raw: '{"name":', headers: { 'content-type': 'application/json' } }),
        'validation_error',
      );
      assert.deepEqual(await listIds(account), [account.workspaceId]);
    });

    it('answers the auth matrix (workspaces:write)', async () => {
      const account = await creator();
      await assertAuthMatrix(app, account, { method: 'POST', path: '/workspaces', scope: 'workspaces:write', body: { name: 'Matrix' } });
      assert.deepEqual(await listIds(account), [account.workspaceId]);
    });
  });

  describe('PATCH /workspaces/{workspaceId}', () => {
    it('renames an upgraded workspace and answers it whole; updatedAt moves, the rest stays', async () => {
      const account = await createAccount(app);
      const t = Date.now() - 60_000;
      await setTimes(account.workspaceId, t);
      const answer = await app.api('PATCH', `/workspaces/${account.workspaceId}`, { token: account.token, body: { name: 'Renamed' } });
      assertJson(answer, 200);
      await assertWorkspace(answer.body, account.workspaceId, 50_000);
      assert.equal(answer.body.name, 'Renamed');
      assert.equal(answer.body.plan, 'BUNDLE_50000');
      assert.equal(answer.body.createdAt, new Date(t).toISOString());
      assert.ok(Date.parse(answer.body.updatedAt) > t);
      assert.ok(Date.now() - Date.parse(answer.body.updatedAt) < 10_000);

      const list = await app.api('GET', '/workspaces', { token: account.token });
      assert.deepEqual(list.body.data[0], answer.body);
    });

    it('accepts names of 1 and 128 characters', async () => {
      const account = await createAccount(app);
      for (const name of ['x', 'n'.repeat(128), '😀'.repeat(128)]) {
        const answer = await app.api('PATCH', `/workspaces/${account.workspaceId}`, { token: account.token, body: { name } });
        assertJson(answer, 200);
        assert.equal(answer.body.name, name);
        assert.equal((await row(account.workspaceId)).name, name);
      }
    });

    it('refuses an empty name, one of 129 characters, a missing, null or non-string one, and changes nothing', async () => {
      const account = await createAccount(app);
      for (const body of [{ name: '' }, { name: 'n'.repeat(129) }, {}, { name: null }, { name: 7 }, { name: false }, { name: ['x'] }]) {
        assertValidation(app, await app.api('PATCH', `/workspaces/${account.workspaceId}`, { token: account.token, body }), 'name');
      }
      assert.equal((await row(account.workspaceId)).name, 'My workspace');
    });

    it('accepts a Workspace read from the API sent back whole: its own id and plan, and any submissionsQuota, createdAt and updatedAt', async () => {
      const account = await createAccount(app, { plan: 'DEALIFY' });
      const t = Date.now() - 60_000;
      await setTimes(account.workspaceId, t);
      const read = (await app.api('GET', '/workspaces', { token: account.token })).body.data[0];
      assert.equal(read.id, account.workspaceId);
      const patch = (body: unknown) => app.api('PATCH', `/workspaces/${account.workspaceId}`, { token: account.token, body });

      const renamed = await patch({ ...read, name: 'Renamed' });
      assertJson(renamed, 200);
      assert.deepEqual({ ...renamed.body, updatedAt: read.updatedAt }, { ...read, name: 'Renamed' });
      const ignored = await patch({
        ...read,
        name: 'Again',
        submissionsQuota: 1_000_000,
        createdAt: '2001-01-01T00:00:00Z',
        updatedAt: '2001-01-01T00:00:00Z',
      });
      assertJson(ignored, 200);
      await assertWorkspace(ignored.body, account.workspaceId, 50_000);
      assert.equal(ignored.body.createdAt, new Date(t).toISOString(), 'createdAt sent back is ignored');
      assert.ok(Date.parse(ignored.body.updatedAt) > t, 'updatedAt sent back is ignored');
      assert.equal((await row(account.workspaceId)).name, 'Again');
    });

    it('refuses an id or a plan other than the workspace’s own, naming each, and unknown body fields; changes nothing', async () => {
      const account = await createAccount(app, { plan: 'DEALIFY' });
      const stranger = await createAccount(app);
      const patch = (body: unknown) => app.api('PATCH', `/workspaces/${account.workspaceId}`, { token: account.token, body });
      assert.deepEqual((await patch({ name: 'Ok', plan: 'BUNDLE_50000' })).body.errors, [
        'plan: must be the workspace’s plan (DEALIFY): a plan changes with a payment, not through the API',
      ]);
      assert.deepEqual((await patch({ name: 'Ok', id: stranger.workspaceId })).body.errors, [
        `id: must be the workspace’s id (${account.workspaceId}), as in the path`,
      ]);
      assertValidation(app, await patch({ name: 'Ok', id: 'x', plan: 'FREE' }), 'id', 'plan');
      for (const [field, value] of [
        ['plan', 'PLATINUM'],
        ['submissionsQuota', 'many'],
        ['createdAt', 'yesterday'],
        ['id', 5],
        ['ownerId', 'x'],
        ['members', []],
      ] as const) {
        assertValidation(app, await patch({ name: 'Ok', [field]: value }), field);
      }
      const stored = await row(account.workspaceId);
      assert.equal(stored.name, 'My workspace');
      assert.equal(stored.plan, 'DEALIFY');
      // another account's workspace stays not found, whatever the body says
      assertProblem(
        app,
        await app.api('PATCH', `/workspaces/${account.workspaceId}`, { token: stranger.token, body: { name: 'x', plan: 'DEALIFY' } }),
        'not_found',
      );
    });

    it('answers upgrade_required with the workspaceId for a FREE workspace, and renames nothing', async () => {
      const account = await createAccount(app, { plan: 'FREE' });
      const answer = await app.api('PATCH', `/workspaces/${account.workspaceId}`, { token: account.token, body: { name: 'Renamed' } });
      assertProblem(app, answer, 'upgrade_required', { workspaceId: account.workspaceId });
      assert.equal((await row(account.workspaceId)).name, 'My workspace');
    });

    it('answers not_found for another account’s workspace, exactly as for one that does not exist', async () => {
      const account = await createAccount(app);
      const paid = await createAccount(app);
      const free = await createAccount(app, { plan: 'FREE' });
      const missingId = newId();
      const missing = await app.api('PATCH', `/workspaces/${missingId}`, { token: account.token, body: { name: 'Mine now' } });
      for (const other of [paid, free]) {
        const answer = await app.api('PATCH', `/workspaces/${other.workspaceId}`, { token: account.token, body: { name: 'Mine now' } });
        assertSameNotFound(app, answer, other.workspaceId, missing, missingId);
        assert.equal((await row(other.workspaceId)).name, 'My workspace');
      }
    });

    it('lets a member of the team rename the workspace with their own token', async () => {
      const owner = await createAccount(app);
      const member = await createAccount(app, { plan: 'FREE' });
      await app.ctx.workspaces.addMember(owner.workspaceId, member.email);
      const answer = await app.api('PATCH', `/workspaces/${owner.workspaceId}`, { token: member.token, body: { name: 'Team name' } });
      assertJson(answer, 200);
      await assertWorkspace(answer.body, owner.workspaceId, 50_000);
      assert.equal(answer.body.name, 'Team name');
    });

    it('answers the auth matrix (workspaces:write)', async () => {
      const account = await createAccount(app);
      await assertAuthMatrix(app, account, {
        method: 'PATCH',
        path: `/workspaces/${account.workspaceId}`,
        scope: 'workspaces:write',
        body: { name: 'Matrix' },
      });
      assert.equal((await row(account.workspaceId)).name, 'My workspace');
    });
  });
});
