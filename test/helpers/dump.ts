import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { Database } from '../../src/db/database.js';

/**
 * Columns that change when nothing was changed: reading writes them. Both are written at most once
 * a minute by any request that authenticates, refused or not, so a refusal may move them.
 * - tokens.last_used_at: a token's last use (services/tokens.ts), shown on `GET /me` and the token page.
 * - sessions.last_seen_at: a dashboard session's last page view, from which its idle expiry counts.
 * Names as Kysely's CamelCasePlugin gives them back.
 */
export const COLUMNS_WRITTEN_BY_READS: Record<string, string[]> = {
  tokens: ['lastUsedAt'],
  sessions: ['lastSeenAt'],
};

/**
 * Rows that reading writes: the audit log records every export, file download and webhook secret
 * shown (services/audit-log.ts), so an allowed read adds its event. Table names as the database has them.
 */
export const ROWS_WRITTEN_BY_READS: Record<string, (row: Record<string, unknown>) => boolean> = {
  audit_events: (row) => ['submissions.exported', 'submissions.file_downloaded', 'form.webhook_secret_shown'].includes(String(row.action)),
};

/** Every table of a dump, by name: its rows as JSON text, sorted. */
export type Dump = Map<string, string[]>;

/** The names of every table in the schema, from the database's own catalogue: a new table is dumped without editing this file. */
async function tableNames(database: Database): Promise<string[]> {
  if (database.dialect === 'sqlite') {
    const rows = await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`.execute(
      database.db,
    );
    return rows.rows.map((r) => r.name);
  }
  const rows = await sql<{ tableName: string }>`
    SELECT table_name FROM information_schema.tables
    WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`.execute(database.db);
  return rows.rows.map((r) => r.tableName);
}

function rowText(table: string, row: Record<string, unknown>): string {
  const ignored = COLUMNS_WRITTEN_BY_READS[table] ?? [];
  const kept = Object.keys(row)
    .filter((column) => !ignored.includes(column))
    .sort()
    .map((column) => [column, row[column]]);
  return JSON.stringify(kept, (_key, value) => (typeof value === 'bigint' ? String(value) : value));
}

/** Every row of every table, sorted, without the columns that reads write. */
export async function dumpTables(database: Database): Promise<Dump> {
  const dump: Dump = new Map();
  for (const table of await tableNames(database)) {
    const rows = await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(table)}`.execute(database.db);
    const readsWrote = ROWS_WRITTEN_BY_READS[table] ?? (() => false);
    dump.set(
      table,
      rows.rows
        .filter((row) => !readsWrote(row))
        .map((row) => rowText(table, row))
        .sort(),
    );
  }
  return dump;
}

/** What differs between two dumps, table by table (rows gone, rows new), empty when nothing does. */
export function diffDumps(before: Dump, after: Dump): string[] {
  const differences: string[] = [];
  for (const table of new Set([...before.keys(), ...after.keys()])) {
    const a = new Set(before.get(table) ?? []);
    const b = new Set(after.get(table) ?? []);
    const gone = [...a].filter((row) => !b.has(row));
    const added = [...b].filter((row) => !a.has(row));
    for (const row of gone) differences.push(`${table}: row gone ${row.slice(0, 300)}`);
    for (const row of added) differences.push(`${table}: row new ${row.slice(0, 300)}`);
  }
  return differences;
}

/** Asserts that nothing stored changed between two dumps. */
export function assertSameDump(before: Dump, after: Dump, what: string): void {
  const differences = diffDumps(before, after);
  assert.deepEqual(differences, [], `${what} changed stored data:\n${differences.slice(0, 10).join('\n')}`);
}
