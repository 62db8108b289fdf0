import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { listen } from '../../src/cli/serve.js';
import type { RawEnv } from '../../src/config/env.js';
import { openContext } from '../../src/context.js';
import { newId } from '../../src/ids.js';
import { startApp, testConfig, type Answer, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { createAccount, blankFormRow, type Account } from '../helpers/fixtures.js';
import { assertValidation } from '../helpers/problems.js';

/** A row as the keyset sees it. */
interface Position {
  id: string;
  createdAt: number;
}

/** Newest first, ties broken by id, descending: the order the API promises. */
function newestFirst(rows: Position[]): string[] {
  return [...rows].sort((a, b) => (a.createdAt !== b.createdAt ? b.createdAt - a.createdAt : a.id < b.id ? 1 : a.id > b.id ? -1 : 0)).map((r) => r.id);
}

/** Inserts forms straight into the store, one per `createdAt` given (equal values make ties). */
async function insertForms(app: TestApp, workspaceId: string, createdAts: number[]): Promise<Position[]> {
  const rows = createdAts.map((createdAt, i) => blankFormRow(workspaceId, `Form ${i}`, createdAt));
  if (rows.length > 0) await app.ctx.database.db.insertInto('forms').values(rows).execute();
  return rows.map(({ id, createdAt }) => ({ id, createdAt }));
}

/** Inserts workspaces the account belongs to, one per `createdAt` given. */
async function insertWorkspaces(app: TestApp, userId: string, createdAts: number[], plan: 'FREE' | 'BUNDLE_50000' = 'BUNDLE_50000'): Promise<Position[]> {
  const rows = createdAts.map((createdAt, i) => ({
    id: newId(),
    name: `Workspace ${i}`,
    plan,
    ownerId: userId,
    submissionsUsed: 0,
    createdAt,
    updatedAt: createdAt,
  }));
  if (rows.length === 0) return [];
  await app.ctx.database.db.insertInto('workspaces').values(rows).execute();
  await app.ctx.database.db
    .insertInto('workspaceMembers')
    .values(rows.map((w) => ({ workspaceId: w.id, userId, role: 'member' as const, createdAt: w.createdAt })))
    .execute();
  return rows.map(({ id, createdAt }) => ({ id, createdAt }));
}

/** Every workspace of the account, as stored (its own one included). */
async function workspacePositions(app: TestApp, userId: string): Promise<Position[]> {
  return app.ctx.database.db
    .selectFrom('workspaces')
    .innerJoin('workspaceMembers', 'workspaceMembers.workspaceId', 'workspaces.id')
    .select(['workspaces.id', 'workspaces.createdAt'])
    .where('workspaceMembers.userId', '=', userId)
    .execute();
}

function formsPath(workspaceId: string, limit?: number, startingAfter?: string): string {
  const q = new URLSearchParams({ workspaceId });
  if (limit !== undefined) q.set('limit', String(limit));
  if (startingAfter !== undefined) q.set('startingAfter', startingAfter);
  return `/forms?${q}`;
}

function workspacesPath(limit?: number, startingAfter?: string): string {
  const q = new URLSearchParams();
  if (limit !== undefined) q.set('limit', String(limit));
  if (startingAfter !== undefined) q.set('startingAfter', startingAfter);
  const s = q.toString();
  return s ? `/workspaces?${s}` : '/workspaces';
}

function assertPage(answer: Answer, label: string): void {
  assert.equal(answer.status, 200, `${label}: ${answer.status} ${JSON.stringify(answer.body)}`);
  assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
  assert.deepEqual(Object.keys(answer.body).sort(), ['data', 'hasMore', 'nextCursor'], label);
  assert.ok(Array.isArray(answer.body.data), label);
  assert.equal(typeof answer.body.hasMore, 'boolean', label);
  if (answer.body.hasMore) assert.equal(typeof answer.body.nextCursor, 'string', `${label}: a page with more has a cursor`);
  else assert.equal(answer.body.nextCursor, null, `${label}: the last page has no cursor`);
}

/**
 * Follows `nextCursor` from the first page to the last (at most `maxPages` requests) and returns
 * the ids in the order seen, checking every page's envelope and size on the way.
 */
async function walk(
  app: TestApp,
  token: string,
  path: (cursor?: string) => string,
  limit: number,
  maxPages: number,
): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let page = 1; page <= maxPages; page++) {
    const answer = await app.api('GET', path(cursor), { token });
    assertPage(answer, `page ${page}`);
    assert.ok(answer.body.data.length <= limit, `page ${page} has at most ${limit} items`);
    ids.push(...answer.body.data.map((item: { id: string }) => item.id));
    if (!answer.body.hasMore) {
      assert.ok(answer.body.data.length > 0 || page === 1, `page ${page}: no empty page after one that said hasMore`);
      return { ids, pages: page };
    }
    assert.equal(answer.body.data.length, limit, `page ${page} with more after it is full`);
    cursor = answer.body.nextCursor;
  }
  assert.fail(`still hasMore after ${maxPages} pages`);
}

function assertEachOnceInOrder(seen: string[], expected: string[]): void {
  assert.equal(new Set(seen).size, seen.length, 'no row is seen twice');
  assert.deepEqual(seen, expected);
}

/** A base64url alphabet character other than `c`. */
function other(c: string): string {
  return c === 'A' ? 'B' : 'A';
}

function replaceAt(s: string, i: number, c: string): string {
  return s.slice(0, i) + c + s.slice(i + 1);
}

describe('pagination (4.6)', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp();
  });
  after(() => app.close());

  describe('limit', () => {
    let account: Account;
    before(async () => {
      account = await createAccount(app);
      const base = Date.now() - 1_000_000;
      await insertForms(
        app,
        account.workspaceId,
        Array.from({ length: 130 }, (_, i) => base + i),
      );
      await insertWorkspaces(
        app,
        account.userId,
        Array.from({ length: 110 }, (_, i) => base + i),
      );
    });

    it('defaults to 25', async () => {
      for (const path of [formsPath(account.workspaceId), workspacesPath()]) {
        const answer = await app.api('GET', path, { token: account.token });
        assertPage(answer, path);
        assert.equal(answer.body.data.length, 25, path);
        assert.equal(answer.body.hasMore, true, path);
      }
    });

    it('accepts 1 and 100', async () => {
      for (const [limit, path] of [
        [1, formsPath(account.workspaceId, 1)],
        [100, formsPath(account.workspaceId, 100)],
        [1, workspacesPath(1)],
        [100, workspacesPath(100)],
      ] as const) {
        const answer = await app.api('GET', path, { token: account.token });
        assertPage(answer, path);
        assert.equal(answer.body.data.length, limit, path);
        assert.equal(answer.body.hasMore, true, path);
      }
    });

    it('refuses 0, 101, -1, abc, 1.5 and an empty value with 400 validation_error naming limit', async () => {
      for (const value of ['0', '101', '-1', 'abc', '1.5', '', '1e9']) {
        for (const path of [`/forms?workspaceId=${account.workspaceId}&limit=${encodeURIComponent(value)}`, `/workspaces?limit=${encodeURIComponent(value)}`]) {
          assertValidation(app, await app.api('GET', path, { token: account.token }), 'limit');
        }
      }
    });
  });

  describe('following cursors', () => {
    it('sees every form once, newest first, when many share the same createdAt', async () => {
      const account = await createAccount(app);
      const t = Date.now() - 500_000;
      // ties: 23 at one instant, 17 at another, singles around them
      const createdAts = [
        ...Array.from({ length: 23 }, () => t),
        ...Array.from({ length: 17 }, () => t - 10),
        ...Array.from({ length: 9 }, (_, i) => t + 100 + i),
        t - 1000,
      ];
      const expected = newestFirst(await insertForms(app, account.workspaceId, createdAts));
      assert.equal(expected.length, 50);
      for (const limit of [1, 5, 7, 25, 49, 50, 100]) {
        const { ids, pages } = await walk(app, account.token, (c) => formsPath(account.workspaceId, limit, c), limit, 60);
        assertEachOnceInOrder(ids, expected);
        assert.equal(pages, Math.max(1, Math.ceil(50 / limit)), `limit ${limit}: no empty trailing page`);
      }
    });

    it('sees every workspace once, newest first, when many share the same createdAt', async () => {
      const account = await createAccount(app);
      const t = Date.now() - 500_000;
      await insertWorkspaces(app, account.userId, [...Array.from({ length: 21 }, () => t), ...Array.from({ length: 13 }, () => t - 1), t + 5]);
      const expected = newestFirst(await workspacePositions(app, account.userId));
      assert.equal(expected.length, 36);
      assert.equal(expected[0], account.workspaceId, 'the account’s own workspace is the newest');
      for (const limit of [1, 4, 6, 36]) {
        const { ids, pages } = await walk(app, account.token, (c) => workspacesPath(limit, c), limit, 40);
        assertEachOnceInOrder(ids, expected);
        assert.equal(pages, Math.ceil(36 / limit));
      }
    });

    it('lists another member’s workspace only to its members', async () => {
      const a = await createAccount(app);
      const b = await createAccount(app);
      const shared = await insertWorkspaces(app, a.userId, [Date.now() - 100]);
      await app.ctx.database.db
        .insertInto('workspaceMembers')
        .values({ workspaceId: shared[0]!.id, userId: b.userId, role: 'member', createdAt: Date.now() })
        .execute();
      const ofB = await walk(app, b.token, (c) => workspacesPath(1, c), 1, 5);
      assert.deepEqual(ofB.ids.sort(), [b.workspaceId, shared[0]!.id].sort());
      const ofA = await walk(app, a.token, (c) => workspacesPath(1, c), 1, 5);
      assert.deepEqual(ofA.ids.sort(), [a.workspaceId, shared[0]!.id].sort());
    });

    it('answers an empty list as one page without a cursor', async () => {
      const account = await createAccount(app);
      const answer = await app.api('GET', formsPath(account.workspaceId), { token: account.token });
      assertPage(answer, 'empty');
      assert.deepEqual(answer.body, { data: [], hasMore: false, nextCursor: null });
    });

    it('reaches a deep page by keyset: 300 forms in groups of ties, limit 7, every row once in order', async () => {
      const account = await createAccount(app);
      const t = Date.now() - 900_000;
      const expected = newestFirst(
        await insertForms(
          app,
          account.workspaceId,
          Array.from({ length: 300 }, (_, i) => t - Math.floor(i / 10)),
        ),
      );
      const { ids, pages } = await walk(app, account.token, (c) => formsPath(account.workspaceId, 7, c), 7, 50);
      assertEachOnceInOrder(ids, expected);
      assert.equal(pages, 43);
    });

    it('continues from the position, not an offset: rows added or deleted meanwhile shift nothing', async () => {
      const account = await createAccount(app);
      const t = Date.now() - 800_000;
      const expected = newestFirst(
        await insertForms(
          app,
          account.workspaceId,
          Array.from({ length: 60 }, (_, i) => t - Math.floor(i / 6)),
        ),
      );
      const first = await app.api('GET', formsPath(account.workspaceId, 7), { token: account.token });
      const second = await app.api('GET', formsPath(account.workspaceId, 7, first.body.nextCursor), { token: account.token });
      assertPage(second, 'page 2');
      const seen = [...first.body.data, ...second.body.data].map((f: { id: string }) => f.id);
      assert.deepEqual(seen, expected.slice(0, 14));

      // newer forms arrive, forms tied with the cursor's position arrive, and already-seen forms are
      // deleted, including the one the cursor points at
      const at = { id: second.body.data[6].id as string, createdAt: Date.parse(second.body.data[6].createdAt) };
      assert.equal(at.id, seen[13]);
      await insertForms(app, account.workspaceId, [t + 1, t + 1, t + 2, at.createdAt, at.createdAt, at.createdAt, at.createdAt, at.createdAt - 1]);
      await app.ctx.database.db.deleteFrom('forms').where('id', 'in', [seen[13]!, seen[0]!, seen[5]!]).execute();

      const now = await app.ctx.database.db.selectFrom('forms').select(['id', 'createdAt']).where('workspaceId', '=', account.workspaceId).execute();
      const after = newestFirst(now.filter((f) => f.createdAt < at.createdAt || (f.createdAt === at.createdAt && f.id < at.id)));
      // everything not yet seen is still ahead, and nothing seen comes back
      assert.deepEqual(
        after.filter((id) => expected.includes(id)),
        expected.slice(14),
      );

      const rest = await walk(app, account.token, (c) => formsPath(account.workspaceId, 7, c ?? second.body.nextCursor), 7, 20);
      assertEachOnceInOrder(rest.ids, after);
      for (const id of seen) assert.ok(!rest.ids.includes(id), `${id} is not seen again`);
    });
  });

  describe('cursors', () => {
    let account: Account;
    let otherWorkspaceId: string;
    let formsCursor: string;
    let workspacesCursor: string;
    let lastOfFirstPage: Position;

    before(async () => {
      account = await createAccount(app);
      const t = Date.now() - 700_000;
      await insertForms(
        app,
        account.workspaceId,
        Array.from({ length: 6 }, () => t),
      );
      const [workspace] = await insertWorkspaces(app, account.userId, [t, t, t]);
      otherWorkspaceId = workspace!.id;
      await insertForms(
        app,
        otherWorkspaceId,
        Array.from({ length: 6 }, () => t),
      );

      const forms = await app.api('GET', formsPath(account.workspaceId, 2), { token: account.token });
      assertPage(forms, 'forms');
      formsCursor = forms.body.nextCursor;
      lastOfFirstPage = { id: forms.body.data[1].id, createdAt: Date.parse(forms.body.data[1].createdAt) };
      const workspaces = await app.api('GET', workspacesPath(2), { token: account.token });
      assertPage(workspaces, 'workspaces');
      workspacesCursor = workspaces.body.nextCursor;
    });

    it('accepts the cursors it issued (the control for the refusals below)', async () => {
      const forms = await app.api('GET', formsPath(account.workspaceId, 2, formsCursor), { token: account.token });
      assertPage(forms, 'forms');
      assert.equal(forms.body.data.length, 2);
      const workspaces = await app.api('GET', workspacesPath(2, workspacesCursor), { token: account.token });
      assertPage(workspaces, 'workspaces');
      assert.equal(workspaces.body.data.length, 2);
    });

    it('refuses a tampered cursor with 400 validation_error naming startingAfter', async () => {
      const accepted: string[] = [];
      for (const [list, cursor, path] of [
        ['forms', formsCursor, (c: string) => formsPath(account.workspaceId, 2, c)],
        ['workspaces', workspacesCursor, (c: string) => workspacesPath(2, c)],
      ] as const) {
        const dot = cursor.indexOf('.');
        assert.ok(dot > 0 && dot < cursor.length - 1, `${list} cursor has two halves`);
        const variants: Record<string, string> = {
          'first character of the first half changed': replaceAt(cursor, 0, other(cursor[0]!)),
          'a middle character of the first half changed': replaceAt(cursor, dot >> 1, other(cursor[dot >> 1]!)),
          'last character of the first half changed': replaceAt(cursor, dot - 1, other(cursor[dot - 1]!)),
          'first character of the second half changed': replaceAt(cursor, dot + 1, other(cursor[dot + 1]!)),
          'last character of the second half changed': replaceAt(cursor, cursor.length - 1, other(cursor[cursor.length - 1]!)),
          'truncated by one': cursor.slice(0, -1),
          'truncated to its first half': cursor.slice(0, dot),
          'truncated after the dot': cursor.slice(0, dot + 1),
          'first character removed': cursor.slice(1),
          'one letter appended': `${cursor}A`,
          'padding appended': `${cursor}=`,
          'a dot appended': `${cursor}.`,
          'a character inserted in the second half': `${cursor.slice(0, dot + 5)}!${cursor.slice(dot + 5)}`,
          'a character inserted in the first half': `${cursor.slice(0, 2)}A${cursor.slice(2)}`,
          repeated: `${cursor}${cursor}`,
          'halves swapped': `${cursor.slice(dot + 1)}.${cursor.slice(0, dot)}`,
          'upper-cased': cursor.toUpperCase() === cursor ? cursor.toLowerCase() : cursor.toUpperCase(),
        };
        for (const [name, tampered] of Object.entries(variants)) {
          assert.notEqual(tampered, cursor, `${list}: ${name} is a different string`);
          const answer = await app.api('GET', path(tampered), { token: account.token });
          if (answer.status !== 400) {
            accepted.push(`${list} cursor, ${name}: ${answer.status}`);
            continue;
          }
          assertValidation(app, answer, 'startingAfter');
        }
      }
      assert.deepEqual(accepted, [], 'every modified cursor is refused');
    });

    it('refuses made-up cursors and cursors derived from an id or createdAt', async () => {
      const { id, createdAt } = lastOfFirstPage;
      const b64 = (s: string) => Buffer.from(s).toString('base64url');
      const payload = b64(`${createdAt}.${id}`);
      const made = [
        'abc',
        'abc.def',
        '.abc',
        'abc.',
        '.',
        'x'.repeat(300),
        id,
        b64(id),
        Buffer.from(id).toString('base64'),
        String(createdAt),
        new Date(createdAt).toISOString(),
        payload,
        `${payload}.`,
        `${payload}.${'A'.repeat(24)}`,
        `${payload}.${formsCursor
          .slice(formsCursor.indexOf('.') + 1)
          .split('')
          .reverse()
          .join('')}`,
        // signed the right way, but with a key that is not the service's
        `${payload}.${createHmac('sha256', 'not-the-secret').update(`cursor|forms:${account.workspaceId}|${payload}`).digest().subarray(0, 18).toString('base64url')}`,
        `${b64(`${createdAt + 1}.${id}`)}${formsCursor.slice(formsCursor.indexOf('.'))}`,
      ];
      for (const cursor of made) {
        for (const path of [formsPath(account.workspaceId, 2, cursor), workspacesPath(2, cursor)]) {
          const answer = await app.api('GET', path, { token: account.token });
          assert.equal(answer.status, 400, `${cursor} on ${path.split('?')[0]} must be refused, got ${answer.status}`);
          assertValidation(app, answer, 'startingAfter');
        }
      }
    });

    it('refuses a cursor issued for another list', async () => {
      // forms of workspace A used for workspace B of the same account
      assertValidation(app, await app.api('GET', formsPath(otherWorkspaceId, 2, formsCursor), { token: account.token }), 'startingAfter');
      // and the other way round
      const ofB = await app.api('GET', formsPath(otherWorkspaceId, 2), { token: account.token });
      assertPage(ofB, 'forms of B');
      assertValidation(app, await app.api('GET', formsPath(account.workspaceId, 2, ofB.body.nextCursor), { token: account.token }), 'startingAfter');
      // workspaces cursor on /forms, forms cursor on /workspaces
      assertValidation(app, await app.api('GET', formsPath(account.workspaceId, 2, workspacesCursor), { token: account.token }), 'startingAfter');
      assertValidation(app, await app.api('GET', workspacesPath(2, formsCursor), { token: account.token }), 'startingAfter');
      // a cursor issued to another account's workspace list
      const stranger = await createAccount(app);
      await insertWorkspaces(app, stranger.userId, [Date.now() - 50, Date.now() - 60]);
      assertValidation(app, await app.api('GET', workspacesPath(2, workspacesCursor), { token: stranger.token }), 'startingAfter');
      const theirs = await app.api('GET', workspacesPath(1), { token: stranger.token });
      assertPage(theirs, 'stranger workspaces');
      assert.equal(theirs.body.hasMore, true);
      assertValidation(app, await app.api('GET', workspacesPath(1, theirs.body.nextCursor), { token: account.token }), 'startingAfter');
      // the lists themselves still answer with their own cursors
      assertPage(await app.api('GET', workspacesPath(1, theirs.body.nextCursor), { token: stranger.token }), 'own cursor');
    });
  });
});

/** A service instance on an existing database, as `formgate serve` would start it. */
async function startOn(database: TestDatabase, env: RawEnv = {}) {
  const config = testConfig(database, env);
  const ctx = await openContext(config);
  const surfaces = await listen(ctx, pino({ level: 'silent' }), { publicUrl: false, submitUrl: false });
  return {
    ctx,
    async get(path: string, token: string): Promise<Answer> {
      const response = await fetch(config.baseUrl + path, { headers: { authorization: `Bearer ${token}` } });
      return { status: response.status, headers: response.headers, body: await response.json() };
    },
    async close() {
      await surfaces.close();
      await ctx.close();
    },
  };
}

describe('cursors across restarts', () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
  });
  after(() => database.drop());

  it('stay valid after a restart with the same secret, and only then', async () => {
    const secret = `${'a'.repeat(20)}cursor-secret-one`;
    const first = await startOn(database, { secret });
    let token: string;
    let workspaceId: string;
    let cursor: string;
    let expectedNext: string[];
    try {
      const { user, workspace } = await first.ctx.users.createUser(`restart-${process.pid}-${Date.now()}@example.com`);
      await first.ctx.workspaces.setPlan(workspace.id, 'BUNDLE_50000');
      ({ secret: token } = await first.ctx.tokens.createToken(user.id, { name: 'restart', scopes: ['forms:read'], expiresAt: null }));
      workspaceId = workspace.id;
      const t = Date.now() - 10_000;
      await first.ctx.database.db
        .insertInto('forms')
        .values(Array.from({ length: 5 }, (_, i) => blankFormRow(workspaceId, `F${i}`, t)))
        .execute();
      const page = await first.get(formsPath(workspaceId, 2), token);
      assert.equal(page.status, 200);
      cursor = page.body.nextCursor;
      const next = await first.get(formsPath(workspaceId, 2, cursor), token);
      assert.equal(next.status, 200);
      expectedNext = next.body.data.map((f: { id: string }) => f.id);
    } finally {
      await first.close();
    }

    const same = await startOn(database, { secret });
    try {
      const answer = await same.get(formsPath(workspaceId, 2, cursor), token);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.deepEqual(
        answer.body.data.map((f: { id: string }) => f.id),
        expectedNext,
      );
    } finally {
      await same.close();
    }

    for (const env of [{ secret: `${'b'.repeat(20)}cursor-secret-two` }, {}]) {
      const changed = await startOn(database, env);
      try {
        const answer = await changed.get(formsPath(workspaceId, 2, cursor), token);
        assert.equal(answer.status, 400, `secret ${env.secret ?? '(generated)'}: ${JSON.stringify(answer.body)}`);
        assert.equal(answer.body.code, 'validation_error');
        assert.ok(answer.body.errors.some((e: string) => e.startsWith('startingAfter:')));
      } finally {
        await changed.close();
      }
    }
  });

  it('stay valid after a restart with the generated secret kept in the database', async () => {
    const first = await startOn(database);
    let token: string;
    let cursor: string;
    try {
      const { user } = await first.ctx.users.createUser(`generated-${process.pid}-${Date.now()}@example.com`);
      ({ secret: token } = await first.ctx.tokens.createToken(user.id, { name: 'generated', scopes: ['workspaces:read'], expiresAt: null }));
      const t = Date.now() - 10_000;
      const ids = Array.from({ length: 3 }, () => newId());
      await first.ctx.database.db
        .insertInto('workspaces')
        .values(ids.map((id) => ({ id, name: id, plan: 'FREE' as const, ownerId: user.id, submissionsUsed: 0, createdAt: t, updatedAt: t })))
        .execute();
      await first.ctx.database.db
        .insertInto('workspaceMembers')
        .values(ids.map((workspaceId) => ({ workspaceId, userId: user.id, role: 'member' as const, createdAt: t })))
        .execute();
      const page = await first.get(workspacesPath(1), token);
      assert.equal(page.status, 200);
      assert.equal(page.body.hasMore, true);
      cursor = page.body.nextCursor;
    } finally {
      await first.close();
    }
    const again = await startOn(database);
    try {
      const answer = await again.get(workspacesPath(1, cursor), token);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(answer.body.data.length, 1);
    } finally {
      await again.close();
    }
  });
});
