import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { buildConfig } from '../src/config/config.js';
import { openContext } from '../src/context.js';
import { Database } from '../src/db/database.js';
import { cliEnv, type CliResult, killRunningCli, runCli } from './helpers/cli.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from './helpers/database.js';

// Issue 38 item 12: `formgate restore` takes exactly the schema the migrations make. A trigger planted
// in a backup survived restore and migrations, copied each new submission into a hidden table and
// overwrote a password hash, and the output showed only counts. Now each foreign object (a trigger,
// view, table, index, function, extension, or one defined otherwise) is refused by name, and the
// target is left as empty as it was, with nothing of the backup run.

function problem(result: CliResult): { code: string; message: string; errors?: string[] } {
  return JSON.parse(result.stdout).error;
}

/** What the target holds: its tables, and on PostgreSQL its functions and extensions too (none of a refused backup may stay). */
async function contents(database: TestDatabase): Promise<string[]> {
  const config = buildConfig({ databaseUrl: database.url, dataDir: database.dataDir }).database;
  if (config.dialect === 'sqlite') {
    if (!fs.existsSync(config.file) || fs.statSync(config.file).size === 0) return [];
    const db = new SqliteDatabase(config.file, { readonly: true });
    try {
      return db.prepare("select type || ' ' || name from sqlite_master").pluck().all() as string[];
    } finally {
      db.close();
    }
  }
  const db = Database.open(config);
  try {
    const { rows } = await sql<{ name: string }>`
      select 'table ' || tablename as name from pg_tables where schemaname = current_schema()
      union all select 'function ' || proname from pg_proc where pronamespace = current_schema()::regnamespace
      union all select 'extension ' || extname from pg_extension where extname <> 'plpgsql'`.execute(db.db);
    return rows.map((r) => r.name).sort();
  } finally {
    await db.destroy();
  }
}

describe(`formgate restore refuses what the migrations do not make (${TEST_DIALECT})`, () => {
  let target: TestDatabase;
  let emptyTarget: string[];
  const sources: TestDatabase[] = [];

  /** A backup of a fresh installation (one account) changed by `tamper` first: SQL run on the source on PostgreSQL, on the backup file on SQLite. */
  async function tamperedBackup(tamper: string): Promise<string> {
    const source = await createTestDatabase();
    sources.push(source);
    const ctx = await openContext(buildConfig({ databaseUrl: source.url, dataDir: source.dataDir }));
    await ctx.users.createUser(`victim-${sources.length}@example.com`);
    if (TEST_DIALECT === 'postgres') await sql.raw(tamper).execute(ctx.database.db);
    await ctx.close();
    const made = await runCli(cliEnv(source), ['backup', '--json']);
    assert.equal(made.code, 0, made.stderr + made.stdout);
    const file = JSON.parse(made.stdout).file as string;
    if (TEST_DIALECT === 'sqlite') {
      const db = new SqliteDatabase(file);
      db.exec(tamper);
      db.close();
    }
    return file;
  }

  async function refusedRestore(file: string): Promise<{ message: string; errors: string[] }> {
    const result = await runCli(cliEnv(target), ['restore', file, '--json']);
    assert.equal(result.code, 1, result.stderr + result.stdout);
    const { code, message, errors } = problem(result);
    assert.equal(code, 'validation_error');
    assert.match(message, /holds (a schema that|what) Formgate's migrations \(up to \d{4}-[a-z-]+\) do not make, so it is not restored/);
    assert.deepEqual(await contents(target), emptyTarget, 'the target is left as it was');
    return { message, errors: errors ?? [] };
  }

  before(async () => {
    target = await createTestDatabase();
    emptyTarget = await contents(target);
  });
  after(async () => {
    killRunningCli();
    await target?.drop();
    for (const source of sources) await source.drop();
  });

  it('refuses a planted trigger, its hidden table and a view, naming each, and writes nothing', async () => {
    const file = await tamperedBackup(
      TEST_DIALECT === 'sqlite'
        ? `create table audit_copy (data text);
           create trigger submissions_copy after insert on submissions begin
             insert into audit_copy values (new.data); update users set password_hash = 'attacker'; end;
           create view everyone as select email, password_hash from users;`
        : `create table audit_copy (data text);
           create function copy_submission() returns trigger language plpgsql as $$
             begin insert into audit_copy values (new.data::text); update users set password_hash = 'attacker'; return new; end $$;
           create trigger submissions_copy after insert on submissions for each row execute function copy_submission();
           create view everyone as select email, password_hash from users;
           create schema hidden; create table hidden.stash (data text);
           create function note_ddl() returns event_trigger language plpgsql as $$ begin update users set password_hash = 'attacker'; end $$;
           create event trigger on_ddl on ddl_command_end execute function note_ddl();`,
    );
    const { message, errors } = await refusedRestore(file);
    const expected =
      TEST_DIALECT === 'sqlite'
        ? [
            'table audit_copy: not made by the migrations',
            'trigger submissions_copy on submissions: not made by the migrations',
            'view everyone: not made by the migrations',
          ]
        : [
            'FUNCTION public.copy_submission()',
            'TABLE public.audit_copy',
            'VIEW public.everyone',
            'TRIGGER public.submissions submissions_copy',
            'SCHEMA hidden',
            'TABLE hidden.stash',
            'FUNCTION public.note_ddl()',
            'EVENT TRIGGER on_ddl',
          ];
    for (const line of expected) {
      assert.ok(errors.includes(line), `${line} in ${JSON.stringify(errors)}`);
      assert.ok(message.includes(line));
    }
  });

  it('refuses objects of the migrations defined otherwise (an index, a function body, a CHECK) and other kinds', async () => {
    const file = await tamperedBackup(
      TEST_DIALECT === 'sqlite'
        ? `drop index daily_counts_workspace_day; create index daily_counts_workspace_day on daily_counts (lower(workspace_id));
           create virtual table notes using fts5(body, tokenize = 'porter');
           create table counter (id integer primary key autoincrement, x text); insert into counter (x) values ('a');
           pragma user_version = 7;`
        : `drop index daily_counts_workspace_day; create index daily_counts_workspace_day on daily_counts (lower(workspace_id));
           create or replace function formgate_notify_change() returns trigger language plpgsql as $$
             begin update users set password_hash = 'attacker'; return null; end $$;
           alter table users add constraint users_probe check (length(email) < 1000);`,
    );
    const { errors } = await refusedRestore(file);
    const expected =
      TEST_DIALECT === 'sqlite'
        ? [
            /^index daily_counts_workspace_day on daily_counts: defined otherwise than the migrations make it \(create index daily_counts_workspace_day on daily_counts\(lower\(workspace_id\)\)\)$/,
            /^table notes: not made by the migrations$/,
            /^table notes_config: not made by the migrations$/,
            /^header user_version: defined otherwise than the migrations make it \(7\)$/,
            /^table sqlite_sequence: not made by the migrations$/,
          ]
        : [
            /^index daily_counts_workspace_day on daily_counts: defined otherwise than the migrations make it \(CREATE INDEX daily_counts_workspace_day ON public.daily_counts USING btree \(lower\(workspace_id\)\)\)$/,
            /^function formgate_notify_change\(\): defined otherwise than the migrations make it/,
            /^constraint users_probe on users: not made by the migrations$/,
          ];
    for (const line of expected)
      assert.ok(
        errors.some((e) => line.test(e)),
        `${line} in ${JSON.stringify(errors)}`,
      );
  });

  it('restores an untouched backup, whose schema is exactly what the migrations make', async () => {
    const file = await tamperedBackup(TEST_DIALECT === 'sqlite' ? 'select 1' : 'select 1');
    const restored = await runCli(cliEnv(target), ['restore', file, '--json']);
    assert.equal(restored.code, 0, restored.stderr + restored.stdout);
    assert.equal(JSON.parse(restored.stdout).counts.accounts, 1);
    assert.equal(JSON.parse(restored.stdout).schemaChecked, true);
  });
});

/** A refused SQLite file is removed: no -wal, -shm or empty file of it stays beside the data. */
describe('formgate restore of SQLite leaves no file behind when it refuses', { skip: TEST_DIALECT !== 'sqlite' && 'SQLite only' }, () => {
  it('has nothing at the target path', async () => {
    const source = await createTestDatabase('sqlite');
    const target = await createTestDatabase('sqlite');
    try {
      const ctx = await openContext(buildConfig({ databaseUrl: source.url, dataDir: source.dataDir }));
      await ctx.close();
      const made = await runCli(cliEnv(source), ['backup', '--json']);
      const file = JSON.parse(made.stdout).file as string;
      const db = new SqliteDatabase(file);
      db.exec('create trigger t after insert on users begin select 1; end');
      db.close();
      const refused = await runCli(cliEnv(target), ['restore', file, '--json']);
      assert.equal(refused.code, 1);
      assert.deepEqual(
        fs.readdirSync(target.dataDir).filter((name) => name.startsWith(path.basename(target.url))),
        [],
      );
    } finally {
      killRunningCli();
      await source.drop();
      await target.drop();
    }
  });
});
