import { sql } from 'kysely';
import type { Database } from './database.js';
import { countInstallation, type InstallationCounts } from './installation-counts.js';
import { pgDump } from './pg-dump.js';

/**
 * `pg_dump --format=custom` of a running installation, and the counts of exactly what it saved:
 * both read the snapshot one repeatable-read transaction exports and keeps open until the dump ends.
 */
export async function dumpPostgres(database: Database, url: string, file: string): Promise<InstallationCounts> {
  return database.db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const { rows } = await sql<{ snapshot: string }>`select pg_export_snapshot() as snapshot`.execute(trx);
      const counts = await countInstallation(trx);
      await pgDump(url, file, rows[0]!.snapshot);
      return counts;
    });
}

/** How many tables the database's schema holds (0: empty), to refuse restoring over data. */
export async function postgresTableCount(database: Database): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from pg_catalog.pg_tables where schemaname = current_schema()`.execute(database.db);
  return Number(rows[0]?.n ?? 0);
}
