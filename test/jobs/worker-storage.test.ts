import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openContext, type AppContext } from '../../src/context.js';
import { enqueueJob } from '../../src/jobs/outbox.js';
import { JobWorker } from '../../src/jobs/worker.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../helpers/database.js';

// A delivery sent while the database could not write its outcome (a full disk; here SQLite's
// query_only on the worker's connection) is recorded once the database can write again, within its
// lease: it is not sent a second time when the lease would have expired.
describe('delivery worker: an outcome that cannot be written yet', { skip: TEST_DIALECT !== 'sqlite' && 'SQLite’s query_only makes the fault' }, () => {
  let testDb: TestDatabase;
  let ctx: AppContext;
  before(async () => {
    testDb = await createTestDatabase();
    ctx = await openContext(testConfig(testDb));
  });
  after(async () => {
    await ctx.close();
    await testDb.drop();
  });

  it('writes it again until it is recorded, and sends the job once', async () => {
    const db = ctx.database.db;
    const id = await enqueueJob(db, { kind: 'gate', payload: {}, runAt: 0 });
    let sends = 0;
    let writable: Promise<void> = Promise.resolve();
    const worker = new JobWorker(ctx.database, {
      gate: {
        async send() {
          sends++;
          // the database turns read-only while the job is under way, for about two record retries
          await sql`PRAGMA query_only = 1`.execute(db);
          writable = new Promise((resolve) => setTimeout(resolve, 1_500)).then(async () => void (await sql`PRAGMA query_only = 0`.execute(db)));
        },
      },
    });
    assert.equal(await worker.runOnce(), 1);
    await writable;
    const job = await db.selectFrom('jobs').select(['status', 'attempts', 'leaseUntil']).where('id', '=', id).executeTakeFirstOrThrow();
    assert.deepEqual(job, { status: 'done', attempts: 1, leaseUntil: null });
    assert.equal(sends, 1);
    const tries = await db.selectFrom('jobAttempts').select('outcome').where('jobId', '=', id).execute();
    assert.deepEqual(tries, [{ outcome: 'ok' }]);
  });
});
