import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildConfig } from '../../src/config/config.js';
import { Database } from '../../src/db/database.js';
import { insertRows } from '../../src/db/insert-rows.js';
import { migrateToLatest } from '../../src/db/migrations/index.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../helpers/database.js';

describe(`insertRows (${TEST_DIALECT})`, () => {
  let testDb: TestDatabase;
  let database: Database;
  before(async () => {
    testDb = await createTestDatabase();
    database = Database.open(buildConfig({ databaseUrl: testDb.url, dataDir: testDb.dataDir }).database);
    await migrateToLatest(database);
  });
  after(async () => {
    await database.destroy();
    await testDb.drop();
  });

  const COLUMNS = ['id', 'kind', 'payload', 'status', 'runAt', 'leaseUntil', 'lastError', 'submissionId', 'idempotencyKey', 'createdAt', 'updatedAt'] as const;
  const job = (i: number) => ({
    id: `job${String(i).padStart(5, '0')}`,
    kind: 'email',
    payload: JSON.stringify({ n: i, text: `it's "quoted" ? $1 and ünïcode` }),
    status: 'pending' as const,
    runAt: 1_700_000_000_000 + i,
    leaseUntil: i % 2 === 0 ? null : 5,
    lastError: null,
    submissionId: null,
    idempotencyKey: `key${i}`,
    createdAt: 1,
    updatedAt: 2,
  });

  it('writes every row with its values as given, across several statements for a long list', async () => {
    const rows = Array.from({ length: 1201 }, (_, i) => job(i));
    await database.transaction((trx) => insertRows(trx, 'jobs', COLUMNS, rows));
    const stored = await database.db
      .selectFrom('jobs')
      .select([...COLUMNS])
      .orderBy('id')
      .execute();
    assert.equal(stored.length, 1201);
    assert.deepEqual(stored[0], rows[0]);
    assert.deepEqual(stored[1], rows[1]);
    assert.deepEqual(stored[1200], rows[1200]);
  });

  it('writes nothing when one row is refused, even in a later statement', async () => {
    const before = await database.db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const rows = Array.from({ length: 700 }, (_, i) => job(5000 + i));
    rows[650] = job(0); // its id is taken
    await assert.rejects(database.transaction((trx) => insertRows(trx, 'jobs', COLUMNS, rows)));
    const after = await database.db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(after.n), Number(before.n));
  });
});
