import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { SubmissionWriter, type SubmissionToStore } from '../../src/intake/writer.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { createAccount, createForm } from '../helpers/fixtures.js';
import { assertProblem } from '../helpers/problems.js';
import { BROWSER_ACCEPT, JSON_ACCEPT, request } from '../helpers/submit.js';

// A database that cannot take a write, made with SQLite's own limits on the service's connection:
// `max_page_count` at the file's size (SQLITE_FULL, as a full disk) and `query_only`
// (SQLITE_READONLY). test/reliability/sqlite-disk.test.ts does it with a real full disk.
describe('SQLite that cannot take a write: honest errors, and everything works again after', {
  skip: TEST_DIALECT !== 'sqlite' && 'SQLite’s page limit and query_only make the faults',
}, () => {
  let app: TestApp;
  before(async () => {
    app = await startApp();
  });
  after(() => app.close());

  /** Caps the file at its size now (SQLITE_FULL for anything needing a new page); `undo` lifts the cap. */
  async function fillUp(): Promise<{ undo(): Promise<void> }> {
    const db = app.ctx.database.db;
    // NOTE: CamelCasePlugin names the column pageCount
    const { rows } = await sql<{ pageCount: number }>`PRAGMA page_count`.execute(db);
    await sql.raw(`PRAGMA max_page_count = ${Number(rows[0]!.pageCount)}`).execute(db);
    return { undo: async () => void (await sql`PRAGMA max_page_count = 1073741823`.execute(db)) };
  }

  const big = (n: number) => `${n}:${'x'.repeat(200_000)}`;

  it('fails a transaction with SQLITE_FULL itself (not with the ROLLBACK that followed), and commits again once there is room', async () => {
    const { database } = app.ctx;
    await sql`CREATE TABLE IF NOT EXISTS filler (x text)`.execute(database.db);
    const full = await fillUp();
    try {
      for (const write of [database.transaction.bind(database), database.transactionFlushedLater.bind(database)]) {
        await assert.rejects(
          write((trx) => sql`INSERT INTO filler VALUES (${big(1)})`.execute(trx)),
          (error: { code?: string }) => error.code === 'SQLITE_FULL',
        );
      }
    } finally {
      await full.undo();
    }
    await database.transactionFlushedLater((trx) => sql`INSERT INTO filler VALUES (${big(2)})`.execute(trx));
    await database.whenDurable();
    const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM filler`.execute(database.db);
    assert.equal(Number(rows[0]!.n), 1);
  });

  it('group commit fails every submission of a batch that cannot be written, stores none of them, and writes the next batch', async () => {
    const account = await createAccount(app);
    const form = await createForm(app, account);
    const writer = new SubmissionWriter(app.ctx.database, async () => undefined);
    const submission = (n: number): SubmissionToStore => ({
      formId: form.id,
      workspaceId: account.workspaceId,
      data: { message: big(n) },
      emailControls: null,
      spam: false,
      deliveries: { kinds: [], notificationEmails: [], webhookUrl: null },
    });
    const full = await fillUp();
    let outcomes: PromiseSettledResult<unknown>[];
    try {
      // handed over in one turn of the event loop: one batch
      outcomes = await Promise.allSettled([1, 2, 3, 4].map((n) => writer.store(submission(n))));
    } finally {
      await full.undo();
    }
    assert.deepEqual(
      outcomes.map((o) => (o.status === 'rejected' ? (o.reason as { code?: string }).code : 'stored')),
      ['SQLITE_FULL', 'SQLITE_FULL', 'SQLITE_FULL', 'SQLITE_FULL'],
    );
    const stored = () => app.ctx.database.db.selectFrom('submissions').select('id').where('formId', '=', form.id).execute();
    assert.equal((await stored()).length, 0, 'nothing of the failed batch was stored');
    const after = await Promise.all([5, 6].map((n) => writer.store(submission(n))));
    assert.deepEqual((await stored()).map((row) => row.id).sort(), after.map((s) => s.id).sort());
  });

  it('answers 503 storage_unavailable on the submit surface and the API while the database is read-only, still serves reads, and recovers', async () => {
    const account = await createAccount(app);
    const form = await createForm(app, account);
    const post = (accept: string) =>
      request('POST', `${app.submitUrl}/${form.id}`, 'message=hello', { accept, 'content-type': 'application/x-www-form-urlencoded' });
    await sql`PRAGMA query_only = 1`.execute(app.ctx.database.db);
    try {
      const json = await post(JSON_ACCEPT);
      assertProblem(app, json, 'storage_unavailable');
      assert.equal(json.headers.get('retry-after'), '30');
      assert.match(json.body.detail, /nothing was stored/);

      const page = await post(BROWSER_ACCEPT);
      assert.equal(page.status, 503);
      assert.equal(page.headers.get('retry-after'), '30');
      assert.match(String(page.body), /nothing was stored/);

      // the token was never used: writing its last use fails, and the read is served all the same
      const list = await app.api('GET', `/forms?workspaceId=${account.workspaceId}`, { token: account.token });
      assert.equal(list.status, 200, JSON.stringify(list.body));
      const created = await app.api('POST', '/forms', { token: account.token, body: { workspaceId: account.workspaceId, name: 'During' } });
      assertProblem(app, created, 'storage_unavailable');
      assert.equal(created.headers.get('retry-after'), '30');

      // health: reads are served, writes fail; not a 503, which would take reads away too
      const health = await request('GET', `${app.submitUrl}/healthz`, null, {});
      assert.deepEqual(
        [health.status, health.body.status, health.body.checks.database],
        [200, 'degraded', { status: 'degraded', reason: 'database_writes_failing', reads: 'ok', writes: 'failing' }],
      );
    } finally {
      await sql`PRAGMA query_only = 0`.execute(app.ctx.database.db);
    }
    assert.equal((await post(JSON_ACCEPT)).status, 200);
    assert.equal((await app.api('POST', '/forms', { token: account.token, body: { workspaceId: account.workspaceId, name: 'After' } })).status, 201);
    const token = await app.ctx.database.db.selectFrom('tokens').select('lastUsedAt').where('userId', '=', account.userId).executeTakeFirstOrThrow();
    assert.notEqual(token.lastUsedAt, null, 'the last use is written once the database can write');
  });
});
