import type { DB } from '../../src/db/schema/index.js';
import type { TestApp } from './app.js';

// every table of the schema (changeCounts is SQLite's cache bookkeeping, not data)
const TABLES: (keyof DB)[] = [
  'settings',
  'users',
  'workspaces',
  'workspaceMembers',
  'tokens',
  'forms',
  'formSecrets',
  'submissions',
  'jobs',
  'jobAttempts',
  'templates',
  'sessions',
  'passwordResets',
  'invitations',
  'dailyCounts',
];

// written by using a credential, not by changing anything: a token's or a session's last use
const VOLATILE: Partial<Record<keyof DB, string[]>> = { tokens: ['lastUsedAt'], sessions: ['lastSeenAt'] };

export type Dump = Record<string, string[]>;

/**
 * Every row of every table, as sorted JSON lines: what a refused request must leave exactly as it
 * was. Columns that merely record a credential's use are left out.
 */
export async function dumpRows(app: TestApp): Promise<Dump> {
  const dump: Dump = {};
  for (const table of TABLES) {
    const rows = (await app.ctx.database.db.selectFrom(table).selectAll().execute()) as Record<string, unknown>[];
    dump[table] = rows
      .map((row) => {
        for (const column of VOLATILE[table] ?? []) delete row[column];
        return JSON.stringify(row, (_, v) => (typeof v === 'bigint' ? v.toString() : v instanceof Date ? v.toISOString() : v));
      })
      .sort();
  }
  return dump;
}

/** The rows that differ between two dumps, table by table ("+" added, "-" gone): empty when nothing changed. */
export function diffRows(before: Dump, after: Dump): string[] {
  const changes: string[] = [];
  for (const table of Object.keys(before)) {
    const was = new Set(before[table]);
    const now = new Set(after[table]);
    for (const row of before[table]!) if (!now.has(row)) changes.push(`${table} -${row}`);
    for (const row of after[table]!) if (!was.has(row)) changes.push(`${table} +${row}`);
  }
  return changes;
}
