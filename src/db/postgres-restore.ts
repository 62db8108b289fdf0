// `formgate restore` of a PostgreSQL dump: only the objects this program's migrations make, checked
// before anything in the dump can run. A dump is a file from outside: a function, trigger, view,
// rule, policy, event trigger or extension planted in it would otherwise survive the restore, run as
// the restoring role (often a superuser) while rows are loaded, and keep running once served.
import type { DB } from './schema/index.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Kysely, sql } from 'kysely';
import type { Database } from './database.js';
import { migrateUpTo, migrationNames } from './migrations/index.js';
import { NewerSchemaError } from './migrations/newer-schema.js';
import { type DumpEntry, dumpEntries, dumpMigrations, pgRestore } from './pg-dump.js';
import { describePostgresSchema, tablesParentsFirst } from './postgres-schema.js';
import { describeDifferences, type SchemaObjects } from './schema-differences.js';
import { ForeignSchemaError } from './sqlite-schema-check.js';

/** Grants and owners: never restored (--no-privileges, --no-owner), so a dump's own are left aside. */
const IGNORED_KINDS = new Set(['ACL']);

class Rollback extends Error {}

/** The migrations the dump records, which this program must know, in its order. */
async function appliedMigrations(file: string): Promise<string[]> {
  const applied = await dumpMigrations(file);
  const known = migrationNames();
  const unknown = applied.filter((name) => !known.includes(name));
  if (unknown.length > 0) throw new NewerSchemaError(unknown, known.at(-1)!, file);
  if (applied.length === 0 || applied.some((name, i) => name !== known[i])) {
    throw new ForeignSchemaError(`${file} records migrations out of order (${applied.join(', ') || 'none'}): no Formgate made it so`, []);
  }
  return applied;
}

/** What the migrations up to `last` make in this database: run in a transaction that is rolled back. */
async function referenceSchema(database: Database, last: string): Promise<SchemaObjects> {
  let reference: SchemaObjects | null = null;
  await database.db
    .transaction()
    .execute(async (trx) => {
      await migrateUpTo(trx, 'postgres', last);
      reference = await describePostgresSchema(trx);
      throw new Rollback();
    })
    .catch((error: unknown) => {
      if (!(error instanceof Rollback)) throw error;
    });
  return reference!;
}

/** The object of the reference an entry of the dump makes, or null when the migrations make none such. */
function referenceKey(entry: DumpEntry, reference: SchemaObjects, schema: string): string | null {
  if (entry.schema !== '-' && entry.schema !== schema) return null;
  const [first = '', second = ''] = entry.tag.split(' ');
  const key = (() => {
    switch (entry.kind) {
      case 'TABLE':
      case 'TABLE DATA':
        return `table ${entry.tag}`;
      case 'SEQUENCE':
      case 'SEQUENCE SET':
      case 'SEQUENCE OWNED BY':
        return `sequence ${entry.tag}`;
      case 'DEFAULT':
        return `column ${first}.${second}`;
      case 'CONSTRAINT':
      case 'FK CONSTRAINT':
        return `constraint ${second} on ${first}`;
      case 'TRIGGER':
        return `trigger ${second} on ${first}`;
      case 'INDEX':
        return [...reference.keys()].find((k) => k.startsWith(`index ${entry.tag} on `)) ?? null;
      case 'FUNCTION':
        return `function ${entry.tag}`;
      case 'EXTENSION':
        return `extension ${entry.tag}`;
      case 'COMMENT':
        return first === 'EXTENSION' ? `extension ${second}` : null;
      default:
        return null;
    }
  })();
  return key !== null && reference.has(key) ? key : null;
}

/** The dump's entries that no migration makes, each named ("TRIGGER public submissions audit"); grants aside. */
function foreignEntries(entries: DumpEntry[], reference: SchemaObjects, schema: string): string[] {
  return entries
    .filter((entry) => !IGNORED_KINDS.has(entry.kind) && referenceKey(entry, reference, schema) === null)
    .map((entry) => `${entry.kind} ${entry.schema === '-' ? '' : `${entry.schema}.`}${entry.tag}`);
}

/** Drops what a restore made in the (empty before) database: its schema's tables, sequences and functions, and the extensions it added. */
async function dropRestored(db: Kysely<DB>, extensionsBefore: Set<string>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const { rows } = await sql<{ kind: string; name: string }>`
      select case relkind when 'S' then 'SEQUENCE' when 'v' then 'VIEW' when 'm' then 'MATERIALIZED VIEW' else 'TABLE' end as kind, relname as name
      from pg_class where relnamespace = current_schema()::regnamespace and relkind in ('r', 'p', 'S', 'v', 'm')`.execute(trx);
    for (const row of rows) await sql.raw(`DROP ${row.kind} IF EXISTS ${quoted(row.name)} CASCADE`).execute(trx);
    const { rows: functions } = await sql<{ signature: string }>`
      select p.oid::regprocedure::text as signature from pg_proc p where p.pronamespace = current_schema()::regnamespace
      and not exists (select 1 from pg_depend e where e.classid = 'pg_proc'::regclass and e.objid = p.oid and e.deptype = 'e')`.execute(trx);
    for (const { signature } of functions) await sql.raw(`DROP ROUTINE IF EXISTS ${signature} CASCADE`).execute(trx);
    const { rows: extensions } = await sql<{ name: string }>`select extname as name from pg_extension`.execute(trx);
    for (const { name } of extensions) if (!extensionsBefore.has(name)) await sql.raw(`DROP EXTENSION IF EXISTS ${quoted(name)} CASCADE`).execute(trx);
  });
}

/**
 * Restores the custom-format dump `file` into the empty database (`database`, at `url`), accepting
 * exactly the objects this program's migrations make up to the dump's last migration:
 * 1. its table of contents is read and every entry the migrations do not make (a function, trigger,
 *    view, rule, policy, event trigger, extension, schema, type…) is refused by name: nothing written;
 * 2. its definitions are restored without a row, so nothing they hold can run, and compared with
 *    the reference (the migrations run in a transaction rolled back): any difference (a column, a
 *    CHECK, an index's expression, a function's body) is refused by name, and what was made dropped;
 * 3. only then its rows: the checked indexes, keys and triggers are dropped, and in one transaction
 *    the rows loaded (parents first) and those entries of the dump made again; checked once more.
 * Any failure after 1 leaves the database empty again.
 */
export async function restorePostgresDump(database: Database, url: string, file: string): Promise<void> {
  const applied = await appliedMigrations(file);
  const db = database.db.withoutPlugins();
  const reference = await referenceSchema(database, applied.at(-1)!);
  const schema = (await sql<{ name: string }>`select current_schema() as name`.execute(db)).rows[0]!.name;
  const entries = await dumpEntries(file);
  const foreign = foreignEntries(entries, reference, schema);
  if (foreign.length > 0) throw refused(file, applied.at(-1)!, foreign);

  const { rows } = await sql<{ name: string }>`select extname as name from pg_extension`.execute(db);
  const extensionsBefore = new Set(rows.map((row) => row.name));
  await pgRestore(url, file, { schema: true });
  try {
    const differences = describeDifferences(reference, await describePostgresSchema(db));
    if (differences.length > 0) throw refused(file, applied.at(-1)!, differences);
    // checked, the indexes, keys and triggers are made again once the rows are in: loading rows
    // into indexed tables took twice as long (13.3 s against 6.1 s for 100,000 submissions)
    const postData = entries.filter((entry) => POST_DATA_KINDS.includes(entry.kind));
    await dropPostData(db, postData);
    await restoreRows(db, url, file, entries, postData);
    const after = describeDifferences(reference, await describePostgresSchema(db));
    if (after.length > 0) throw refused(file, applied.at(-1)!, after);
  } catch (error) {
    await dropRestored(db, extensionsBefore);
    throw error;
  }
}

/**
 * The entries made after the rows (pg_dump's post-data section), in the order they are dropped:
 * triggers, then foreign keys, then the keys and indexes they rest on.
 */
const POST_DATA_KINDS = ['TRIGGER', 'FK CONSTRAINT', 'CONSTRAINT', 'INDEX'];

/** Drops the checked indexes, keys and triggers of `postData`, so that the rows load without them; restoreRows makes them again. */
async function dropPostData(db: Kysely<DB>, postData: DumpEntry[]): Promise<void> {
  const byKind = (kind: string) => postData.filter((entry) => entry.kind === kind).map((entry) => entry.tag.split(' '));
  await db.transaction().execute(async (trx) => {
    for (const [table, name] of byKind('TRIGGER')) await sql.raw(`DROP TRIGGER ${quoted(name!)} ON ${quoted(table!)}`).execute(trx);
    for (const kind of ['FK CONSTRAINT', 'CONSTRAINT'])
      for (const [table, name] of byKind(kind)) await sql.raw(`ALTER TABLE ${quoted(table!)} DROP CONSTRAINT ${quoted(name!)}`).execute(trx);
    for (const [name] of byKind('INDEX')) await sql.raw(`DROP INDEX ${quoted(name!)}`).execute(trx);
  });
}

/**
 * The rows (and sequences' values) of every table, parents first, then the indexes, keys and
 * triggers of `postData` as the dump defines them (checked already), in one transaction.
 */
async function restoreRows(db: Kysely<DB>, url: string, file: string, entries: DumpEntry[], postData: DumpEntry[]): Promise<void> {
  const order = await tablesParentsFirst(db);
  const rank = (entry: DumpEntry) => (entry.kind === 'TABLE DATA' ? order.indexOf(entry.tag) : order.length);
  const rows = entries.filter((entry) => entry.kind === 'TABLE DATA' || entry.kind === 'SEQUENCE SET').sort((a, b) => rank(a) - rank(b));
  // the dump's own order for what comes after the rows: keys before the foreign keys that need them
  const data = [...rows, ...entries.filter((entry) => postData.includes(entry))];
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'formgate-restore-'));
  try {
    const list = path.join(folder, 'rows.list');
    fs.writeFileSync(list, `${data.map((entry) => entry.line).join('\n')}\n`, { mode: 0o600 });
    await pgRestore(url, file, { data: true, list });
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

function quoted(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

function refused(file: string, last: string, objects: string[]): ForeignSchemaError {
  return new ForeignSchemaError(
    `${file} holds what Formgate's migrations (up to ${last}) do not make, so it is not restored: ${objects.join('; ')}. ` +
      'A dump made by `formgate backup` holds none of these: it was changed after it was made, or made of another database. Restore another backup.',
    objects,
  );
}
