import { sql } from 'kysely';
import { VERSION } from '../../version.js';
import type { Database } from '../database.js';

/** A database migrated by a newer Formgate: this program must not run on a schema it does not know. */
export class NewerSchemaError extends Error {
  constructor(
    readonly unknown: string[],
    readonly newestKnown: string,
    databaseName?: string,
  ) {
    const theirs = unknown.length === 1 ? `migration ${unknown[0]}` : `migrations ${unknown.join(', ')}`;
    super(
      `the database${databaseName ? ` ${databaseName}` : ''} was migrated by a newer Formgate: it has ${theirs}, which this program ` +
        `(v${VERSION}, newest migration ${newestKnown}) does not know. Run the newer version (or restore the backup ` +
        'taken before the upgrade); a downgrade is possible only where CHANGELOG.md says so.',
    );
    this.name = 'NewerSchemaError';
  }
}

/** The names in Kysely's migration table, oldest first; none when no migration ever ran here. */
async function appliedMigrations(database: Database): Promise<string[]> {
  const exists =
    database.dialect === 'sqlite'
      ? await sql<{ n: number }>`select count(*) as n from sqlite_master where type = 'table' and name = 'kysely_migration'`.execute(database.db)
      : await sql<{
          n: number;
        }>`select count(*)::int as n from pg_catalog.pg_tables where tablename = 'kysely_migration' and schemaname = current_schema()`.execute(database.db);
  if (Number(exists.rows[0]?.n ?? 0) === 0) return [];
  const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(database.db);
  return rows.map((r) => r.name);
}

/**
 * Refuses, before anything is written, a database that holds migrations this program does not
 * know: Kysely would call that "corrupted migrations", when it is a downgrade the operator should undo.
 */
export async function refuseNewerSchema(database: Database, known: string[], databaseName?: string): Promise<void> {
  const knownSet = new Set(known);
  const unknown = (await appliedMigrations(database)).filter((name) => !knownSet.has(name));
  if (unknown.length > 0) throw new NewerSchemaError(unknown, known.at(-1) ?? '(none)', databaseName);
}
