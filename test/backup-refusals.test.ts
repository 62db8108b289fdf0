import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { buildConfig } from '../src/config/config.js';
import { openContext } from '../src/context.js';
import { Database } from '../src/db/database.js';
import { DELIVERIES_PAUSED_KEY } from '../src/db/deliveries-setting.js';
import { postgresTableCount } from '../src/db/postgres-backup.js';
import { cliEnv, killRunningCli, runCli, type CliResult } from './helpers/cli.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from './helpers/database.js';
import { buildPreviousRelease, migrationsSince } from './helpers/previous-release.js';

// What `formgate backup` and `formgate restore` refuse, each with a message that names what is
// wrong and what to do, and with nothing written.

function problem(result: CliResult): { code: string; message: string } {
  return JSON.parse(result.stdout).error;
}

/** How many tables the database holds: 0 for a SQLite file that is not there. */
async function tableCount(database: TestDatabase): Promise<number> {
  const config = buildConfig({ databaseUrl: database.url, dataDir: database.dataDir }).database;
  if (config.dialect === 'sqlite') {
    if (!fs.existsSync(config.file)) return 0;
    const db = new SqliteDatabase(config.file, { readonly: true });
    try {
      return Number(db.prepare("select count(*) from sqlite_master where type = 'table'").pluck().get());
    } finally {
      db.close();
    }
  }
  const db = Database.open(config);
  try {
    return await postgresTableCount(db);
  } finally {
    await db.destroy();
  }
}

describe(`formgate backup and restore refusals (${TEST_DIALECT})`, () => {
  let source: TestDatabase;
  let target: TestDatabase;
  let backupFile: string;

  before(async () => {
    [source, target] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    const ctx = await openContext(buildConfig({ databaseUrl: source.url, dataDir: source.dataDir }));
    await ctx.users.createUser(`refusals-${process.pid}@example.com`);
    await ctx.close();
    const made = await runCli(cliEnv(source), ['backup', '--json']);
    assert.equal(made.code, 0, made.stderr + made.stdout);
    backupFile = JSON.parse(made.stdout).file;
  });
  after(async () => {
    killRunningCli();
    await source?.drop();
    await target?.drop();
  });

  it('writes the default file in FORMGATE_DATA_DIR/backups with a UTC time in its name, private to its owner', () => {
    assert.equal(path.dirname(backupFile), path.join(source.dataDir, 'backups'));
    assert.match(path.basename(backupFile), TEST_DIALECT === 'sqlite' ? /^formgate-\d{4}-\d\d-\d\dT\d{6}Z\.db$/ : /^formgate-\d{4}-\d\d-\d\dT\d{6}Z\.pgdump$/);
    assert.equal(fs.statSync(backupFile).mode & 0o077, 0, 'no one else may read it');
    assert.equal(fs.statSync(path.dirname(backupFile)).mode & 0o077, 0);
  });

  it('refuses to back up a database that is not there, naming it, and leaves no file', async () => {
    const missing = TEST_DIALECT === 'sqlite' ? `sqlite:${path.join(source.dataDir, 'missing.db')}` : `${new URL('/formgate_not_there', source.url)}`;
    const file = path.join(source.dataDir, 'of-nothing');
    const refused = await runCli({ ...cliEnv(source), FORMGATE_DATABASE_URL: missing }, ['backup', '--to', file, '--json']);
    assert.equal(refused.code, 2);
    assert.equal(problem(refused).code, 'config');
    assert.match(problem(refused).message, /^the database .+ does not exist/);
    assert.equal(fs.existsSync(file), false);
  });

  it('never overwrites a file', async () => {
    const file = path.join(source.dataDir, 'taken');
    fs.writeFileSync(file, 'something else');
    const refused = await runCli(cliEnv(source), ['backup', '--to', file, '--json']);
    assert.equal(refused.code, 1);
    assert.equal(problem(refused).code, 'conflict');
    assert.match(problem(refused).message, /already exists; a backup never overwrites a file/);
    assert.equal(fs.readFileSync(file, 'utf8'), 'something else');
  });

  it('refuses a file that is not a backup, naming it, and writes nothing', async () => {
    const file = path.join(source.dataDir, 'notes.txt');
    fs.writeFileSync(file, 'not a database\n');
    const refused = await runCli(cliEnv(target), ['restore', file, '--json']);
    assert.equal(refused.code, 1);
    assert.deepEqual(problem(refused), {
      code: 'validation_error',
      message: `${file} is not a Formgate backup: it is neither a SQLite database nor a pg_dump custom-format file (formgate backup makes one of these)`,
    });
    const missing = await runCli(cliEnv(target), ['restore', path.join(source.dataDir, 'nothing-here'), '--json']);
    assert.match(problem(missing).message, /does not exist or is not a file/);
    assert.equal(await tableCount(target), 0);
  });

  it('refuses a SQLite database that Formgate did not make', async () => {
    const file = path.join(source.dataDir, 'other.sqlite');
    const other = new SqliteDatabase(file);
    other.exec('create table notes (body text)');
    other.close();
    const refused = await runCli(cliEnv(target), ['restore', file, '--json']);
    assert.equal(refused.code, 1);
    assert.match(problem(refused).message, /is a SQLite database but not a Formgate backup/);
    assert.equal(await tableCount(target), 0);
  });

  it('refuses a backup of the other dialect, pointing at formgate move for SQLite to PostgreSQL', async () => {
    if (TEST_DIALECT === 'sqlite') {
      const file = path.join(source.dataDir, 'from-postgres.pgdump');
      fs.writeFileSync(file, Buffer.concat([Buffer.from('PGDMP'), Buffer.alloc(100)]));
      const refused = await runCli(cliEnv(target), ['restore', file, '--json']);
      assert.equal(refused.code, 1);
      assert.match(problem(refused).message, /is a backup of a PostgreSQL installation and restores into PostgreSQL only/);
    } else {
      const sqlite = await createTestDatabase('sqlite');
      try {
        const ctx = await openContext(buildConfig({ databaseUrl: sqlite.url, dataDir: sqlite.dataDir }));
        await ctx.close();
        const made = await runCli(cliEnv(sqlite), ['backup', '--json']);
        const refused = await runCli(cliEnv(target), ['restore', JSON.parse(made.stdout).file, '--json']);
        assert.equal(refused.code, 1);
        assert.match(
          problem(refused).message,
          /is a backup of a SQLite installation and FORMGATE_DATABASE_URL points at PostgreSQL: .+ `formgate move --to postgres:\/\/…`/,
        );
      } finally {
        await sqlite.drop();
      }
    }
    assert.equal(await tableCount(target), 0);
  });

  it('refuses a target that is not empty, naming it, and leaves it as it was', async () => {
    const before = await tableCount(source);
    const refused = await runCli(cliEnv(source), ['restore', backupFile, '--json']);
    assert.equal(refused.code, 1);
    assert.equal(problem(refused).code, 'conflict');
    const shown = TEST_DIALECT === 'sqlite' ? `sqlite:${path.join(source.dataDir, 'formgate.db')}` : source.url;
    assert.ok(problem(refused).message.includes(`the target database ${shown} is not empty`), problem(refused).message);
    assert.equal(await tableCount(source), before);
  });

  it('restores into an empty database, paused, and a SQLite backup file is paused itself', async () => {
    if (TEST_DIALECT === 'sqlite') {
      // copied into place by hand, the file starts paused too, and needs no -wal beside it
      const file = new SqliteDatabase(backupFile, { readonly: true });
      try {
        assert.ok(file.prepare('select value from settings where key = ?').get(DELIVERIES_PAUSED_KEY), 'the backup file holds the pause');
        assert.equal(file.pragma('journal_mode', { simple: true }), 'delete');
      } finally {
        file.close();
      }
    }
    const restored = await runCli(cliEnv(target), ['restore', backupFile]);
    assert.equal(restored.code, 0, restored.stderr + restored.stdout);
    assert.match(restored.stdout, /^Restored .+ into .+: 1 account, 1 workspace, 0 forms, 0 submissions, \d+ pending deliver(y|ies)\.$/m);
    assert.match(restored.stdout, /^Deliveries are paused: \d+ wait/m);
    assert.match(restored.stdout, /`formgate deliveries resume`/);
    const ctx = await openContext(buildConfig({ databaseUrl: target.url, dataDir: target.dataDir }));
    try {
      assert.equal((await ctx.deliveryPause.status()).paused, true);
    } finally {
      await ctx.close();
    }
  });

  // a hang detector, not a stopwatch: building that release may run its own `npm ci` (bounded at 300 s) and
  // esbuild (60 s) before the three commands (20 s each); the fresh-clone runs saw 120 s run out on a busy machine
  it('migrates the backup of an older version once restored, logging each migration', { timeout: 600_000 }, async () => {
    // a database as the previous release leaves it, made by that release's own program
    const previous = await buildPreviousRelease();
    const older = await createTestDatabase();
    const into = await createTestDatabase();
    try {
      const migrated = await runCli(cliEnv(older), ['migrate', '--json'], previous.program);
      assert.equal(migrated.code, 0, migrated.stderr);
      const made = await runCli(cliEnv(older), ['backup', '--json']);
      assert.equal(made.code, 0, made.stderr);
      const restored = await runCli(cliEnv(into), ['restore', JSON.parse(made.stdout).file, '--json']);
      assert.equal(restored.code, 0, restored.stderr + restored.stdout);
      const newer = await migrationsSince(previous.commit);
      assert.ok(newer.length > 0, `this version has migrations ${previous.version} did not`);
      for (const file of newer) assert.match(restored.stderr, new RegExp(`^formgate: migration ${file.replace(/\.ts$/, '')} ran in \\d+ ms$`, 'm'));
      assert.equal(JSON.parse(restored.stdout).deliveriesPaused, true);
    } finally {
      previous.remove();
      await older.drop();
      await into.drop();
    }
  });

  it('says which package holds pg_dump when it is missing', { skip: TEST_DIALECT !== 'postgres' && 'PostgreSQL only' }, async () => {
    const refused = await runCli({ ...cliEnv(source), PATH: '/nonexistent' }, ['backup', '--to', path.join(source.dataDir, 'no-pg-dump'), '--json']);
    assert.equal(refused.code, 2);
    assert.equal(problem(refused).code, 'config');
    assert.match(problem(refused).message, /^pg_dump is not installed .+ the package postgresql-client/);
    assert.equal(fs.existsSync(path.join(source.dataDir, 'no-pg-dump')), false, 'no empty file left behind');
  });
});
