import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { buildConfig } from '../../src/config/config.js';
import { Database } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrations/index.js';
import { moveToPostgres, openMoveSource } from '../../src/db/move/move.js';
import { MoveRefusedError } from '../../src/db/move/refusal.js';
import { matchTables, readSourceTables, SKIPPED_TABLES, skipReason, type TargetColumn } from '../../src/db/move/schema.js';
import { kindOf, TableChecksum } from '../../src/db/move/values.js';
import { cliEnv, FROM_SOURCE, PROJECT_ROOT } from '../helpers/cli.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../helpers/database.js';
import { execFileSync } from 'node:child_process';

const PG_ONLY = TEST_DIALECT !== 'postgres' && 'PostgreSQL only: formgate move copies into a PostgreSQL database (run with FORMGATE_TEST_DB=postgres)';

/** PostgreSQL's migrated schema as committed (test/db/migrations.test.ts keeps it true to the migrations on a real server). */
function postgresSnapshot(): Map<string, TargetColumn[]> {
  const snapshot = JSON.parse(fs.readFileSync(new URL('../snapshots/schema.postgres.json', import.meta.url), 'utf8')) as {
    tables: Record<string, { columns: { name: string; type: string }[] }>;
  };
  return new Map(
    Object.entries(snapshot.tables).map(([name, t]) => [name, t.columns.map((c) => ({ name: c.name, type: c.type, identityAlways: false, sequence: false }))]),
  );
}

describe('formgate move: what it copies', () => {
  let source: TestDatabase;
  let database: Database;
  before(async () => {
    source = await createTestDatabase('sqlite');
    database = Database.open(buildConfig({ databaseUrl: source.url, dataDir: source.dataDir }).database);
    await migrateToLatest(database);
  });
  after(async () => {
    await database?.destroy();
    await source?.drop();
  });

  it('copies every table of the schema or leaves it out for a stated reason; a table or column of one side only is refused', async () => {
    const tables = await readSourceTables(database.db.withoutPlugins());
    const target = postgresSnapshot();
    const copied = matchTables(tables, target);
    const skipped = tables.filter((t) => skipReason(t.name) !== null).map((t) => t.name);
    assert.deepEqual([...copied.map((t) => t.name), ...skipped].sort(), tables.map((t) => t.name).sort(), 'each SQLite table copied or skipped');
    // unread_counts is filled on PostgreSQL by its triggers, as the submissions are copied (cli-move.test.ts)
    const filledByTriggers = ['unread_counts'];
    assert.deepEqual(
      copied.map((t) => t.name).sort(),
      [...target.keys()].filter((name) => !filledByTriggers.includes(name)).sort(),
      'each PostgreSQL table filled',
    );
    for (const table of copied) {
      assert.deepEqual(
        table.columns.map((c) => c.name).sort(),
        target
          .get(table.name)!
          .map((c) => c.name)
          .sort(),
        `${table.name}: every column`,
      );
    }
    for (const name of Object.keys(SKIPPED_TABLES)) {
      assert.ok(
        tables.some((t) => t.name === name),
        `${name} is skipped but no longer in the schema: take it off SKIPPED_TABLES`,
      );
    }
    // parents first: a row's foreign keys find their rows already copied
    const order = copied.map((t) => t.name);
    for (const table of tables.filter((t) => order.includes(t.name))) {
      for (const parent of table.parents) assert.ok(order.indexOf(parent) < order.indexOf(table.name), `${parent} before ${table.name}`);
    }

    const withNewTable = [...tables, { name: 'form_heartbeats', columns: ['id'], parents: [] }];
    const refusal = (pattern: RegExp) => (error: unknown) => error instanceof MoveRefusedError && error.details.some((d) => pattern.test(d));
    assert.throws(() => matchTables(withNewTable, target), refusal(/table form_heartbeats is in the SQLite database but not on PostgreSQL/));
    const withNewColumn = tables.map((t) => (t.name === 'forms' ? { ...t, columns: [...t.columns, 'colour_scheme'] } : t));
    assert.throws(() => matchTables(withNewColumn, target), refusal(/forms: column\(s\) colour_scheme only in the SQLite database/));
    const pgOnly = new Map(target).set('heartbeats', [{ name: 'id', type: 'text', identityAlways: false, sequence: false }]);
    assert.throws(() => matchTables(tables, pgOnly), refusal(/table heartbeats is on PostgreSQL but not in the SQLite database/));
  });

  it('checksums a table the same whatever the order of its rows and the dialect’s form of a value, and differently for any changed row', () => {
    const kinds = ['text', 'int8', 'jsonb', 'json', 'bool'].map(kindOf);
    const sum = (rows: unknown[][]) => {
      const checksum = new TableChecksum(kinds);
      for (const row of rows) checksum.add(row);
      return checksum.hex;
    };
    // as SQLite gives them, and as PostgreSQL gives them back (jsonb parsed and its keys reordered, bool as boolean)
    const sqlite = [
      ['a', 1700000000000, '{"b":1,"a":[1,"x"]}', '{"z":1,"a":2}', 1],
      ['b', 2, '[]', '{}', 0],
      ['c', null, '{"k":null}', '{"k":"v"}', null],
    ];
    const postgres = [
      ['c', null, { k: null }, '{"k":"v"}', null],
      ['a', 1700000000000, { a: [1, 'x'], b: 1 }, '{"z":1,"a":2}', true],
      ['b', 2, [], '{}', false],
    ];
    assert.equal(sum(sqlite), sum(postgres));
    assert.notEqual(sum(sqlite), sum(sqlite.slice(1)), 'a missing row');
    assert.notEqual(sum(sqlite), sum([...sqlite, sqlite[0]!]), 'a row twice');
    assert.notEqual(sum(sqlite), sum([['a', 1700000000000, '{"b":1,"a":[1,"x"]}', '{"a":2,"z":1}', 1], ...sqlite.slice(1)]), 'json keys reordered');
    assert.notEqual(sum(sqlite), sum([['a', 1700000000001, '{"b":1,"a":[1,"x"]}', '{"z":1,"a":2}', 1], ...sqlite.slice(1)]), 'a number changed');
    assert.notEqual(sum(sqlite), sum([['a', 1700000000000, '{"b":1,"a":[1,"x"]}', '{"z":1,"a":2}', 1], ['b', 2, '[]', '{}', null], sqlite[2]!]), 'a null');
  });
});

describe('formgate move: writers during the move, and a copy that does not verify', { skip: PG_ONLY }, () => {
  let source: TestDatabase;
  let target: TestDatabase;
  before(async () => {
    source = await createTestDatabase('sqlite');
    target = await createTestDatabase('postgres');
    execFileSync(process.execPath, [...FROM_SOURCE, 'migrate'], { cwd: PROJECT_ROOT, env: cliEnv(source), stdio: 'pipe' });
    execFileSync(process.execPath, [...FROM_SOURCE, 'users', 'create', '--email', 'owner@example.com'], {
      cwd: PROJECT_ROOT,
      env: cliEnv(source),
      stdio: 'pipe',
    });
  });
  after(async () => {
    await source?.drop();
    await target?.drop();
  });

  it('says so when another process wrote to the SQLite database while it was copied', async () => {
    // opened as `formgate move` opens it
    const from = openMoveSource(buildConfig({ databaseUrl: source.url, dataDir: source.dataDir }).database);
    const to = Database.open({ dialect: 'postgres', url: target.url });
    const writer = new SqliteDatabase(source.url.slice('sqlite:'.length));
    try {
      const result = await moveToPostgres(
        from,
        to,
        { source: source.url, target: 'the target', targetUrl: target.url },
        {
          planned: async () => true,
          meter: () => ({
            // Formgate still running: a write lands after the read began
            advance: () => void writer.prepare("INSERT OR IGNORE INTO settings (key, value, created_at) VALUES ('written-meanwhile', 'x', 0)").run(),
            finish: () => undefined,
          }),
          log: () => undefined,
        },
      );
      assert.ok(result);
      assert.equal(result.verified, true, 'the copy is still one consistent moment of the source');
      assert.equal(result.sourceChanged, true);
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM settings WHERE key = 'written-meanwhile'`.execute(to.db);
      assert.equal(rows[0]!.n, 0, 'the write made after the read began is not in the copy');
    } finally {
      writer.close();
      await from.destroy();
      await to.destroy();
    }
  });

  it('exits 1 with FAILED when a table read back differs from what was copied', async () => {
    const other = await createTestDatabase('postgres');
    const to = Database.open({ dialect: 'postgres', url: other.url });
    try {
      // the schema already there (allowed: it holds no rows), with a trigger that alters what is written
      await migrateToLatest(to);
      await sql`CREATE FUNCTION garble() RETURNS trigger AS $$ BEGIN NEW.email := upper(NEW.email); RETURN NEW; END $$ LANGUAGE plpgsql`.execute(to.db);
      await sql`CREATE TRIGGER garble BEFORE INSERT ON users FOR EACH ROW EXECUTE FUNCTION garble()`.execute(to.db);
      let code = 0;
      let stdout = '';
      try {
        stdout = execFileSync(process.execPath, [...FROM_SOURCE, 'move', '--to', other.url, '--yes'], {
          cwd: PROJECT_ROOT,
          env: cliEnv(source),
          encoding: 'utf8',
          stdio: 'pipe',
        });
      } catch (error) {
        const e = error as { status: number; stdout: string };
        code = e.status;
        stdout = e.stdout;
      }
      assert.equal(code, 1, stdout);
      assert.match(stdout, /\n {2}users +1 +1 +[0-9a-f]{16} \/ [0-9a-f]{16} +MISMATCH\n/);
      assert.match(stdout, /Verification FAILED: users differ\(s\).*Do not start Formgate on the new database/);
      assert.doesNotMatch(stdout, /FORMGATE_DATABASE_URL=/, 'no line saying to start on it');
    } finally {
      await to.destroy();
      await other.drop();
    }
  });
});
