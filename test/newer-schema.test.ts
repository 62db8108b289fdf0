import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { buildConfig } from '../src/config/config.js';
import { openContext } from '../src/context.js';
import { Database } from '../src/db/database.js';
import { NewerSchemaError } from '../src/db/migrations/newer-schema.js';
import { VERSION } from '../src/version.js';
import { cliEnv, killRunningCli, runCli, spawnServe, type ServerProcess } from './helpers/cli.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';

const LISTEN = { FORMGATE_HOST: '127.0.0.1', FORMGATE_PORT: '0', FORMGATE_SUBMIT_PORT: '0' };
const FUTURE = '0999-from-the-future';

/** The refusal, whoever prints it: both versions, the migration, and what to do. */
function assertRefusal(message: string, newestKnown: string): void {
  assert.ok(message.includes(`it has migration ${FUTURE}, which this program (v${VERSION}, newest migration ${newestKnown}) does not know`), message);
  assert.match(message, /was migrated by a newer Formgate/);
  assert.match(message, /Run the newer version \(or restore the backup taken before the upgrade\)/);
  assert.doesNotMatch(message, /corrupted migrations/);
  assert.doesNotMatch(message, /^\s+at /m, 'no stack trace');
}

describe('a program older than its database schema', () => {
  let database: TestDatabase;
  let env: NodeJS.ProcessEnv;
  /** What a fresh database records: this program's migrations, the newest last. */
  let migrated: string[];
  const refusal = (message: string) => assertRefusal(message, migrated.at(-1)!);
  const servers: ServerProcess[] = [];

  /** The rows of the migration table and how many accounts exist: what a refusal must leave as it was. */
  async function state(): Promise<{ migrations: string[]; users: number }> {
    const db = Database.open(buildConfig({ databaseUrl: database.url, dataDir: database.dataDir }).database);
    try {
      const migrations = (await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db.db)).rows.map((r) => r.name);
      const users = Number((await sql<{ n: number | string }>`select count(*) as n from users`.execute(db.db)).rows[0]!.n);
      return { migrations, users };
    } finally {
      await db.destroy();
    }
  }

  before(async () => {
    database = await createTestDatabase();
    env = cliEnv(database, LISTEN);
    const ctx = await openContext(buildConfig({ databaseUrl: database.url, dataDir: database.dataDir }));
    await ctx.close();
    const db = Database.open(buildConfig({ databaseUrl: database.url, dataDir: database.dataDir }).database);
    try {
      migrated = (await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db.db)).rows.map((r) => r.name);
      assert.match(migrated.at(-1)!, /^00\d\d-/, 'a fresh database recorded the migrations');
      await sql`insert into kysely_migration (name, timestamp) values (${FUTURE}, ${new Date().toISOString()})`.execute(db.db);
    } finally {
      await db.destroy();
    }
  });
  after(async () => {
    killRunningCli();
    for (const server of servers) server.kill();
    await database?.drop();
  });

  it('openContext refuses with NewerSchemaError naming the database', async () => {
    await assert.rejects(openContext(buildConfig({ databaseUrl: database.url, dataDir: database.dataDir })), (error: unknown) => {
      assert.ok(error instanceof NewerSchemaError, String(error));
      refusal(error.message);
      assert.deepEqual(error.unknown, [FUTURE]);
      assert.match(error.message, database.url.startsWith('sqlite:') ? /the database sqlite:\/.*formgate\.db was migrated/ : /the database postgres:\/\//);
      return true;
    });
  });

  it('formgate serve exits with code 2 and the message, as a fatal JSON line with JSON logs, and serves nothing', async () => {
    const server = spawnServe(env);
    servers.push(server);
    const exit = await server.waitForExit(20_000);
    assert.deepEqual(exit, { code: 2, signal: null }, server.stderr());
    const fatal = server.lines.at(-1)?.json;
    assert.deepEqual({ level: fatal?.level, code: fatal?.code, exitCode: fatal?.exitCode }, { level: 60, code: 'config', exitCode: 2 });
    assert.match(fatal!.msg, /^the database .* was migrated by a newer Formgate/);
    refusal(fatal!.msg);
    assert.equal(server.stderr(), '');
    assert.ok(!server.lines.some((line) => /^Formgate is ready/.test(line.json?.msg ?? '')), 'never ready');
  });

  it('admin commands refuse too: exit 2, error code config, in text and JSON', async () => {
    const json = await runCli(env, ['users', 'create', '--email', 'someone@example.com', '--json']);
    assert.equal(json.code, 2, json.stderr);
    const body = JSON.parse(json.stdout.trim());
    assert.equal(body.error.code, 'config');
    refusal(body.error.message);

    const text = await runCli(env, ['migrate']);
    assert.equal(text.code, 2, text.stdout);
    assert.equal(text.stdout, '');
    refusal(text.stderr);
  });

  it('changed nothing: the future migration is still recorded and no account was made', async () => {
    assert.deepEqual(await state(), { migrations: [...migrated, FUTURE], users: 0 });
  });
});
