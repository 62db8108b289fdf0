// `formgate move`: a whole installation copied from its SQLite database into an empty PostgreSQL one,
// from one consistent reading of the source, then read back and compared table by table.
import { sql } from 'kysely';
import type { DatabaseConfig } from '../../config/config.js';
import { Database } from '../database.js';
import { migrateToLatest } from '../migrations/index.js';
import { checkSourceSchema, checkTargetEmpty, checkTargetReachable } from './checks.js';
import { advanceSequences, checksumTarget, copyTable } from './copy.js';
import { type CopiedTable, matchTables, readSourceTables, readTargetTables, skipReason } from './schema.js';
import type { TableChecksum } from './values.js';

/** What would be copied: each table with its rows (in the order copied), and what is left out and why. */
export interface MovePlan {
  tables: { name: string; rows: number }[];
  skipped: { name: string; reason: string }[];
  rows: number;
}

/** One table's verification: rows and checksum read from SQLite (as copied) and read back from PostgreSQL. */
export interface TableVerification {
  name: string;
  sourceRows: number;
  targetRows: number;
  sourceChecksum: string;
  targetChecksum: string;
  match: boolean;
}

export interface MoveResult {
  tables: TableVerification[];
  /** Every table matched. */
  verified: boolean;
  /** Another process wrote to the SQLite database while it was copied: what it wrote is not on PostgreSQL. */
  sourceChanged: boolean;
  rows: number;
  copyMs: number;
  verifyMs: number;
}

/** A progress meter (cli/progress.ts gives one). */
export interface MoveMeter {
  advance(rows: number): void;
  finish(): void;
}

export interface MoveHooks {
  /** Told the plan; resolves true to copy, false to stop there (a dry run, or the operator said no). */
  planned(plan: MovePlan): Promise<boolean>;
  /** A meter of `total` rows for a step (`copying`, `verifying`). */
  meter(label: string, total: number): MoveMeter;
  /** Says what the target's migration does. */
  log(message: string): void;
}

/**
 * Opens the SQLite source of a move, which must exist. Its transactions only read (BEGIN DEFERRED): the copy is
 * one long reading and must not hold the running server's writes back, as BEGIN IMMEDIATE would.
 */
export function openMoveSource(config: DatabaseConfig): Database {
  return Database.open(config, { mustExist: true, readerTransactions: true });
}

/**
 * Moves the installation in `source` (SQLite) into `target` (PostgreSQL at `names.targetUrl`, empty): checks both, then
 * inside one read transaction of the source (so every table is copied as of one moment) tells
 * `hooks.planned` the plan, migrates the target to this program's schema, and copies every table in
 * one transaction of the target (a failure leaves it with the empty schema only). Then reads the
 * target back to verify it. Null when `planned` said to stop: nothing was written.
 */
export async function moveToPostgres(
  source: Database,
  target: Database,
  names: { source: string; target: string; targetUrl: string },
  hooks: MoveHooks,
): Promise<MoveResult | null> {
  await checkSourceSchema(source, names.source);
  await checkTargetReachable(target, names.targetUrl, names.target);
  await checkTargetEmpty(target, names.target);
  const versionBefore = await dataVersion(source);
  const copyStarted = Date.now();
  const copy = await source.db.transaction().execute(async (trx) => {
    const read = trx.withoutPlugins();
    const sourceTables = await readSourceTables(read);
    const plan: MovePlan = { tables: [], skipped: [], rows: 0 };
    for (const table of sourceTables) {
      const reason = skipReason(table.name);
      if (reason !== null) {
        plan.skipped.push({ name: table.name, reason });
        continue;
      }
      const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(table.name)}`.execute(read);
      plan.tables.push({ name: table.name, rows: Number(rows[0]!.n) });
      plan.rows += Number(rows[0]!.n);
    }
    if (!(await hooks.planned(plan))) return null;

    await migrateToLatest(target, (name, ms) => hooks.log(`target: migration ${name} ran in ${ms} ms`), names.target);
    const tables = matchTables(sourceTables, await readTargetTables(target));
    const meter = hooks.meter('copying', plan.rows);
    const sums = new Map<string, TableChecksum>();
    await target.db.transaction().execute(async (trx) => {
      const write = trx.withoutPlugins();
      for (const table of tables) {
        try {
          sums.set(table.name, await copyTable(read, write, table, (_, rows) => meter.advance(rows)));
          await advanceSequences(write, table);
        } catch (error) {
          throw new Error(
            `copying table ${table.name} failed: ${(error as Error).message}. Nothing was copied: the target holds Formgate's schema with no rows, and the move can be run again once the cause is fixed.`,
            { cause: error },
          );
        }
      }
    });
    meter.finish();
    return { tables, sums, rows: plan.rows };
  });
  if (copy === null) return null;
  const copyMs = Date.now() - copyStarted;
  const sourceChanged = (await dataVersion(source)) !== versionBefore;

  const verifyStarted = Date.now();
  const verification = await verify(target, copy.tables, copy.sums, hooks.meter('verifying', copy.rows));
  return {
    tables: verification,
    verified: verification.every((t) => t.match),
    sourceChanged,
    rows: copy.rows,
    copyMs,
    verifyMs: Date.now() - verifyStarted,
  };
}

async function verify(target: Database, tables: CopiedTable[], sums: Map<string, TableChecksum>, meter: MoveMeter): Promise<TableVerification[]> {
  const results: TableVerification[] = [];
  for (const table of tables) {
    const source = sums.get(table.name)!;
    const copied = await checksumTarget(target.db.withoutPlugins(), table, (_, rows) => meter.advance(rows));
    results.push({
      name: table.name,
      sourceRows: source.rows,
      targetRows: copied.rows,
      sourceChecksum: source.hex,
      targetChecksum: copied.hex,
      match: source.rows === copied.rows && source.hex === copied.hex,
    });
  }
  meter.finish();
  return results;
}

/** SQLite's count of commits by other connections: a change across the move says Formgate (or anything else) wrote meanwhile. */
async function dataVersion(source: Database): Promise<number> {
  const { rows } = await sql<{ data_version: number }>`PRAGMA data_version`.execute(source.db.withoutPlugins());
  return Number(rows[0]!.data_version);
}
