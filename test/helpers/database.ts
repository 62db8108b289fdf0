import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

/** Which dialect this run of the suite uses: FORMGATE_TEST_DB=sqlite (default) or postgres. */
export const TEST_DIALECT: 'sqlite' | 'postgres' = process.env.FORMGATE_TEST_DB === 'postgres' ? 'postgres' : 'sqlite';

/** The server the PostgreSQL suite creates its databases on. */
export const TEST_PG_URL = process.env.FORMGATE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  url: string;
  dataDir: string;
  drop(): Promise<void>;
}

/**
 * FORMGATE_TEST_RUN (scripts/test.sh sets it for its PostgreSQL run): each test's database is named
 * after the run and left for its end, when drop-run-databases.ts drops them all, each checkpoint
 * then quick. PostgreSQL's DROP DATABASE forces a checkpoint, and some 400 of them amid the other
 * files' writes cost that run about a tenth of its time. Without it (a file run by hand), each test
 * drops its own.
 */
const TEST_RUN = process.env.FORMGATE_TEST_RUN;
if (TEST_RUN !== undefined && !/^[a-z0-9]{1,20}$/.test(TEST_RUN)) throw new Error('FORMGATE_TEST_RUN: 1 to 20 lower-case letters and digits');

/** How the databases of a run left for its end begin. */
const runPrefix = (run: string) => `formgate_test_${run}_`;

/** Drops the databases this run (FORMGATE_TEST_RUN) left for its end, one at a time; answers how many. */
export async function dropRunDatabases(): Promise<number> {
  if (TEST_RUN === undefined) throw new Error('FORMGATE_TEST_RUN names the run whose databases to drop');
  const client = new pg.Client({ connectionString: TEST_PG_URL });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT datname FROM pg_database WHERE starts_with(datname, $1) ORDER BY datname', [runPrefix(TEST_RUN)]);
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    return rows.length;
  } finally {
    await client.end();
  }
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** A fresh, empty database of the suite's dialect (PostgreSQL: a copy of `template`), and a data folder; `drop` removes both. */
export async function createTestDatabase(dialect = TEST_DIALECT, template?: string): Promise<TestDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'formgate-test-'));
  if (dialect === 'sqlite') {
    return {
      url: `sqlite:${path.join(dataDir, 'formgate.db')}`,
      dataDir,
      drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const name = `${TEST_RUN === undefined ? 'formgate_test_' : runPrefix(TEST_RUN)}${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_PG_URL });
  await admin.connect();
  await admin.query(template === undefined ? `CREATE DATABASE ${name}` : `CREATE DATABASE ${name} TEMPLATE ${template}`);
  await admin.end();
  return {
    url: withDatabase(TEST_PG_URL, name),
    dataDir,
    drop: async () => {
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (TEST_RUN !== undefined) return;
      const client = new pg.Client({ connectionString: TEST_PG_URL });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

const MIGRATIONS_DIR = fileURLToPath(new URL('../../src/db/migrations/', import.meta.url));
/** Any number, the same in every test process: the lock under which one of them builds the PostgreSQL template. */
const TEMPLATE_LOCK = 59_217_004;

/**
 * A fresh database already at this program's newest schema, as `startApp` wants one: a copy of a
 * template migrated once per schema (named by a hash of src/db/migrations/) instead of hundreds of
 * databases each running every migration. A test of the migrations themselves, of an upgrade or
 * of an empty target takes `createTestDatabase` instead.
 */
export async function createMigratedTestDatabase(dialect = TEST_DIALECT): Promise<TestDatabase> {
  const tag = schemaTag();
  if (dialect === 'sqlite') {
    const template = await sqliteTemplate(tag);
    const database = await createTestDatabase('sqlite');
    // the mode comes along with the copy: the file stays private, as Formgate makes it
    fs.copyFileSync(template, database.url.slice('sqlite:'.length));
    return database;
  }
  const template = await postgresTemplate(tag);
  return createTestDatabase('postgres', template);
}

/** A hash of the migrations' source: a change to any of them makes (and uses) a new template. */
function schemaTag(): string {
  const hash = createHash('sha256');
  for (const file of fs.readdirSync(MIGRATIONS_DIR).sort()) hash.update(file).update(fs.readFileSync(path.join(MIGRATIONS_DIR, file)));
  return hash.digest('hex').slice(0, 16);
}

/** The SQLite template's path, made when missing: migrated under a name of its own, then renamed into place (atomic). */
async function sqliteTemplate(tag: string): Promise<string> {
  const file = path.join(os.tmpdir(), `formgate-test-schema-${tag}.db`);
  if (fs.existsSync(file)) return file;
  const building = `${file}.${process.pid}-${randomBytes(4).toString('hex')}`;
  await migrateNew({ dialect: 'sqlite', file: building });
  fs.renameSync(building, file);
  return file;
}

/** The PostgreSQL template's name, made when missing by one test process at a time; nobody may connect to it. */
async function postgresTemplate(tag: string): Promise<string> {
  const name = `formgate_template_${tag}`;
  const admin = new pg.Client({ connectionString: TEST_PG_URL });
  await admin.connect();
  try {
    await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount === 0) {
      const building = `${name}_${process.pid}`;
      await admin.query(`DROP DATABASE IF EXISTS ${building}`);
      await admin.query(`CREATE DATABASE ${building}`);
      await migrateNew({ dialect: 'postgres', url: withDatabase(TEST_PG_URL, building) });
      await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
      // a connection to a template would make every copy of it fail ("being accessed by other users")
      await admin.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false`);
    }
  } finally {
    await admin.end();
  }
  return name;
}

async function migrateNew(config: { dialect: 'sqlite'; file: string } | { dialect: 'postgres'; url: string }): Promise<void> {
  const { Database } = await import('../../src/db/database.js');
  const { migrateToLatest } = await import('../../src/db/migrations/index.js');
  const database = Database.open(config);
  try {
    await migrateToLatest(database);
  } finally {
    await database.destroy();
  }
}
