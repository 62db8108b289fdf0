// What `formgate restore` accepts of a SQLite backup: exactly the schema this program's migrations
// make, up to the backup's own last migration. A backup is a file from outside: a trigger, view,
// table or index planted in it would otherwise survive the restore and every migration after it.
import type { DB } from './schema/index.js';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { migrateUpTo, migrationNames } from './migrations/index.js';
import { NewerSchemaError } from './migrations/newer-schema.js';
import { describeDifferences, type SchemaObjects } from './schema-differences.js';

/** SQLite's own statistics (ANALYZE): kept, whatever the migrations made; nothing can hang a trigger on them. */
const STATISTICS = new Set(['sqlite_stat1', 'sqlite_stat4']);
/** The header's numbers a migration could set; any other value says the file was made otherwise. */
const HEADER_PRAGMAS = ['user_version', 'application_id'] as const;

/** A backup holds objects the migrations do not make (named in `objects`), or records its migrations out of order. */
export class ForeignSchemaError extends Error {
  constructor(
    message: string,
    readonly objects: string[],
  ) {
    super(message);
    this.name = 'ForeignSchemaError';
  }
}

/**
 * Opens `file` for reading only, with no trigger, view or function of its schema trusted: the
 * checks below read the schema's description (sqlite_master, pragmas) and run nothing it defines.
 */
function openUntrusted(file: string): SqliteDatabase.Database {
  const db = new SqliteDatabase(file, { fileMustExist: true, readonly: true });
  db.pragma('trusted_schema = OFF');
  return db;
}

/** The migrations recorded in the file, oldest first; refused when this program does not know one, or they skip one. */
function appliedMigrations(db: SqliteDatabase.Database, file: string): string[] {
  const applied = (db.prepare('select name from kysely_migration order by name').pluck().all() as string[]).map(String);
  const known = migrationNames();
  const unknown = applied.filter((name) => !known.includes(name));
  if (unknown.length > 0) throw new NewerSchemaError(unknown, known.at(-1)!, file);
  const expected = known.slice(0, applied.length);
  if (applied.length === 0 || applied.some((name, i) => name !== expected[i])) {
    throw new ForeignSchemaError(`${file} records migrations out of order (${applied.join(', ') || 'none'}): no Formgate made it so`, []);
  }
  return applied;
}

/** Each object of the schema (tables, indexes, triggers, views, virtual tables) by kind and name, with its definition. */
function schemaObjects(db: SqliteDatabase.Database): SchemaObjects {
  const objects: SchemaObjects = new Map();
  const rows = db.prepare('select type, name, tbl_name as "table", sql from sqlite_master').all() as {
    type: string;
    name: string;
    table: string;
    sql: string | null;
  }[];
  for (const row of rows) {
    if (STATISTICS.has(row.name)) continue;
    const on = row.type === 'index' || row.type === 'trigger' ? ` on ${row.table}` : '';
    objects.set(`${row.type} ${row.name}${on}`, normaliseSql(row.sql));
  }
  for (const pragma of HEADER_PRAGMAS) objects.set(`header ${pragma}`, String(db.pragma(pragma, { simple: true })));
  return objects;
}

/**
 * SQL as SQLite keeps it, without what does not change its meaning: the spacing, and the quotes
 * around names (the text of a migration's statement may have been reformatted since it ran).
 */
function normaliseSql(text: string | null): string {
  if (text === null) return '(made by SQLite)';
  return text
    .replace(/["`[\]]/g, '')
    .replace(/\s+/g, ' ')
    .replace(/\s*([(),=])\s*/g, '$1')
    .trim()
    .toLowerCase();
}

/** The schema a database migrated up to `last` has, made in memory by running the migrations themselves. */
async function referenceObjects(last: string): Promise<SchemaObjects> {
  const sqlite = new SqliteDatabase(':memory:');
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: sqlite }) });
  try {
    await migrateUpTo(db, 'sqlite', last);
    return schemaObjects(sqlite);
  } finally {
    await db.destroy();
  }
}

/**
 * Refuses (ForeignSchemaError, naming each object) a SQLite backup whose schema is not exactly the
 * one this program's migrations make up to the backup's last migration: an object they do not make
 * (a trigger, a view, a table, an index, a virtual table), one they make otherwise (a column's
 * definition, an index's expression, a tokenizer), or one missing. Nothing in the file is run.
 */
export async function checkSqliteSchema(file: string): Promise<void> {
  let found: SchemaObjects;
  let applied: string[];
  const db = openUntrusted(file);
  try {
    applied = appliedMigrations(db, file);
    found = schemaObjects(db);
  } catch (error) {
    if (error instanceof NewerSchemaError || error instanceof ForeignSchemaError) throw error;
    throw new ForeignSchemaError(`${file} cannot be read as a Formgate backup: ${(error as Error).message}`, []);
  } finally {
    db.close();
  }
  const differences = describeDifferences(await referenceObjects(applied.at(-1)!), found);
  if (differences.length > 0) {
    throw new ForeignSchemaError(
      `${file} holds a schema that Formgate's migrations (up to ${applied.at(-1)}) do not make, so it is not restored: ${differences.join('; ')}. ` +
        'A backup made by `formgate backup` holds none of these: it was changed after it was made. Restore another backup, or remove these objects from a copy of it yourself if you know why they are there.',
      differences,
    );
  }
}
