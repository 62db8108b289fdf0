import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { buildConfig } from '../../src/config/config.js';
import { Database } from '../../src/db/database.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../helpers/database.js';

/** Writes that may skip the fsync (the delivery worker's bookkeeping), and only those. */
describe(`Database.withoutFsync (${TEST_DIALECT})`, () => {
  let testDb: TestDatabase;
  let database: Database;
  before(async () => {
    testDb = await createTestDatabase();
    database = Database.open(buildConfig({ databaseUrl: testDb.url, dataDir: testDb.dataDir }).database);
  });
  after(async () => {
    await database.destroy();
    await testDb.drop();
  });

  it('answers what its function answers, and passes its failure on', async () => {
    assert.equal(await database.withoutFsync(async (db) => (await sql<{ n: number }>`SELECT 41 + 1 AS n`.execute(db)).rows[0]!.n), 42);
    await assert.rejects(
      database.withoutFsync(() => Promise.reject(new Error('inside'))),
      /inside/,
    );
  });

  it('on SQLite, relaxes the commits inside it only, and lets no other query run meanwhile', { skip: TEST_DIALECT !== 'sqlite' }, async () => {
    const synchronous = async (db: Database['db']) => Number(Object.values((await sql`PRAGMA synchronous`.execute(db)).rows[0] as object)[0]);
    const FULL = 2;
    const NORMAL = 1;
    assert.equal(await synchronous(database.db), FULL);

    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let inside: number | undefined;
    const relaxed = database.withoutFsync(async (db) => {
      inside = await synchronous(db);
      await gate;
    });
    await new Promise((resolve) => setImmediate(resolve));
    // an ordinary query asked for meanwhile waits for the connection, and then sees FULL again
    let outsideSettled = false;
    const outside = synchronous(database.db).finally(() => (outsideSettled = true));
    // unblocked, a SQLite query settles within a turn of the event loop; give it three
    for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(inside, NORMAL);
    assert.equal(outsideSettled, false, 'the ordinary query waited');
    open();
    await relaxed;
    assert.equal(await outside, FULL);

    await assert.rejects(database.withoutFsync(() => Promise.reject(new Error('inside'))));
    assert.equal(await synchronous(database.db), FULL, 'restored after a failure too');
  });
});
