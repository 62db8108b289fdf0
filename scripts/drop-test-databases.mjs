// Drops the databases a PostgreSQL run of the suite left for its end (FORMGATE_TEST_RUN, see
// test/helpers/database.ts): one at a time, now that nothing else writes, each checkpoint is quick.
import pg from 'pg';

const run = process.env.FORMGATE_TEST_RUN;
if (!run || !/^[a-z0-9]{1,20}$/.test(run)) throw new Error('FORMGATE_TEST_RUN names the run whose databases to drop');
const client = new pg.Client({ connectionString: process.env.FORMGATE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test' });
await client.connect();
try {
  const { rows } = await client.query('SELECT datname FROM pg_database WHERE starts_with(datname, $1) ORDER BY datname', [`formgate_test_${run}_`]);
  for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  console.log(`dropped the run's ${rows.length} test databases`);
} finally {
  await client.end();
}
