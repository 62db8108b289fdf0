import { sql } from 'kysely';
import type { Queryable } from './database.js';

/** What a backup or a restore holds, in the words an operator checks it by. */
export interface InstallationCounts {
  accounts: number;
  workspaces: number;
  forms: number;
  submissions: number;
  /** Deliveries not yet made (pending): what a restored copy sends once resumed. */
  pendingDeliveries: number;
}

/** One statement, so on PostgreSQL it reads one snapshot; plain SQL, so a SQLite file can be counted without Kysely. */
export const COUNTS_SQL = `select
  (select count(*) from users) as accounts,
  (select count(*) from workspaces) as workspaces,
  (select count(*) from forms) as forms,
  (select count(*) from submissions) as submissions,
  (select count(*) from jobs where status = 'pending') as pending_deliveries`;

/** The counts of a row of COUNTS_SQL, whichever case its keys came back in. */
export function countsOf(row: Record<string, unknown>): InstallationCounts {
  return {
    accounts: Number(row.accounts),
    workspaces: Number(row.workspaces),
    forms: Number(row.forms),
    submissions: Number(row.submissions),
    pendingDeliveries: Number(row.pendingDeliveries ?? row.pending_deliveries),
  };
}

/** Counts the rows that matter to an operator. */
export async function countInstallation(db: Queryable): Promise<InstallationCounts> {
  const { rows } = await sql<Record<string, unknown>>`${sql.raw(COUNTS_SQL)}`.execute(db);
  return countsOf(rows[0]!);
}
