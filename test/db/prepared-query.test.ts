import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildConfig } from '../../src/config/config.js';
import { openContext, type AppContext } from '../../src/context.js';
import { sql } from 'kysely';
import { PreparedQuery, statementNameOf } from '../../src/db/prepared-query.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../helpers/database.js';

describe(`PreparedQuery (${TEST_DIALECT})`, () => {
  let database: TestDatabase;
  let ctx: AppContext;
  before(async () => {
    database = await createTestDatabase();
    ctx = await openContext(buildConfig({ databaseUrl: database.url, dataDir: database.dataDir }));
    for (const [key, value] of [
      ['a', 'one'],
      ['b', 'two'],
      ['c', 'three'],
    ]) {
      await ctx.database.db
        .insertInto('settings')
        .values({ key: `pq-${key}`, value: value!, createdAt: 5 })
        .execute();
    }
  });
  after(async () => {
    await ctx?.close();
    await database?.drop();
  });

  const byKey = new PreparedQuery<{ key: string }, { key: string; value: string; createdAt: number }>((db, { key }) =>
    db.selectFrom('settings').select(['key', 'value', 'createdAt']).where('key', '=', key).where('createdAt', '=', 5),
  );

  it('answers what the built query answers, with each call’s own parameters and the built-in constants kept', async () => {
    for (const key of ['pq-a', 'pq-c', 'pq-b', 'pq-a']) {
      const built = await ctx.database.db
        .selectFrom('settings')
        .select(['key', 'value', 'createdAt'])
        .where('key', '=', key)
        .where('createdAt', '=', 5)
        .executeTakeFirst();
      assert.deepEqual(await byKey.executeTakeFirst(ctx.database.db, { key }), built);
    }
    assert.equal(await byKey.executeTakeFirst(ctx.database.db, { key: 'pq-none' }), undefined);
  });

  it('gives camelCase columns, as every query does, and runs inside a transaction', async () => {
    const row = await ctx.database.transaction((trx) => byKey.executeTakeFirst(trx, { key: 'pq-b' }));
    assert.deepEqual(row, { key: 'pq-b', value: 'two', createdAt: 5 });
  });

  it('binds every use of a parameter in the statement', async () => {
    const either = new PreparedQuery<{ first: string; second: string }, { key: string }>((db, { first, second }) =>
      db
        .selectFrom('settings')
        .select('key')
        .where((eb) => eb.or([eb('key', '=', first), eb('key', '=', second)]))
        .orderBy('key'),
    );
    assert.deepEqual(await either.execute(ctx.database.db, { first: 'pq-c', second: 'pq-a' }), [{ key: 'pq-a' }, { key: 'pq-c' }]);
    assert.deepEqual(await either.execute(ctx.database.db, { first: 'pq-b', second: 'pq-b' }), [{ key: 'pq-b' }]);
  });

  const onPostgres = { skip: TEST_DIALECT !== 'postgres' && 'named statements are PostgreSQL’s' };

  it('is prepared once on each PostgreSQL connection, under its own name, and keeps running after a table it reads gains a column', onPostgres, async () => {
    const byValue = new PreparedQuery<{ value: string }, { key: string }>((db, { value }) =>
      db.selectFrom('settings').select('key').where('value', '=', value),
    );
    await ctx.database.db.connection().execute(async (connection) => {
      assert.deepEqual(await byValue.execute(connection, { value: 'two' }), [{ key: 'pq-b' }]);
      const prepared = await sql<{ name: string; statement: string }>`SELECT name, statement FROM pg_prepared_statements`.execute(connection);
      const mine = prepared.rows.filter((row) => row.name === statementNameOf(row.statement) && row.statement.includes('"value" = $1'));
      assert.equal(mine.length, 1, JSON.stringify(prepared.rows));
      assert.match(mine[0]!.name, /^formgate_\d+$/);
      // as a newer instance's migration would, while this connection holds the statement
      await ctx.database.db.schema.alterTable('settings').addColumn('pq_later', 'text').execute();
      assert.deepEqual(await byValue.execute(connection, { value: 'three' }), [{ key: 'pq-c' }]);
    });
  });
});
