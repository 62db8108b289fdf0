// What `formgate move` copies: the tables and columns of both schemas, read from the databases
// themselves, so that a table or column added by a later migration is copied without a change here.
import { type Kysely, sql } from 'kysely';
import type { Database } from '../database.js';
import type { DB } from '../schema/index.js';
import { MoveRefusedError } from './refusal.js';

/**
 * The SQLite tables deliberately not copied, and why. Any other table of the source must exist on
 * PostgreSQL with the same columns, or the move is refused (so a new SQLite-only table is a
 * decision, made here, not a silent loss).
 */
export const SKIPPED_TABLES: Readonly<Record<string, string>> = {
  change_counts: "SQLite's counts of changes to the rows it keeps in memory (migration 0010); PostgreSQL's triggers announce them with NOTIFY (migration 0023)",
  search_backlog: "the rows SQLite's search index has yet to take (migration 0009); PostgreSQL's index takes each row as it is written",
  submissions_search: "SQLite's full-text index (FTS5); PostgreSQL searches search_text through its own trigram index, built as the rows are copied",
  unread_counts: "each form's unread submissions (migration 0045): PostgreSQL's triggers count the submissions as they are copied",
  kysely_migration: 'the migrations applied: the target records its own as it is migrated to the same schema',
  kysely_migration_lock: "the migrations' lock: the target has its own",
};

// The tables FTS5 keeps for a full-text index: skipped with their index.
const FTS5_SHADOWS = ['data', 'idx', 'content', 'docsize', 'config'];

/** Why `table` is not copied, or null when it is. */
export function skipReason(table: string): string | null {
  if (Object.hasOwn(SKIPPED_TABLES, table)) return SKIPPED_TABLES[table]!;
  const shadowOf = FTS5_SHADOWS.map((suffix) => `_${suffix}`).find((suffix) => table.endsWith(suffix));
  const index = shadowOf ? table.slice(0, -shadowOf.length) : null;
  if (index && Object.hasOwn(SKIPPED_TABLES, index)) return `a table of ${index} (FTS5 keeps its index in it)`;
  return null;
}

/** A table of the source: its columns in order, and the tables its foreign keys point at. */
export interface SourceTable {
  name: string;
  columns: string[];
  parents: string[];
}

/** A column of the target: its type (PostgreSQL's `udt_name`: int4, int8, text, json, jsonb, bool…) and how it is generated. */
export interface TargetColumn {
  name: string;
  type: string;
  /** GENERATED ALWAYS AS IDENTITY: an INSERT that gives it a value must say OVERRIDING SYSTEM VALUE. */
  identityAlways: boolean;
  /** Fed by a sequence (identity or serial), which must be set past the copied values. */
  sequence: boolean;
}

/** A table to copy: its columns with their target types, in the order both sides read them. */
export interface CopiedTable {
  name: string;
  columns: TargetColumn[];
}

/** Every table of the SQLite database (SQLite's own `sqlite_*` aside), in an order where each comes after those its foreign keys name. */
export async function readSourceTables(db: Kysely<DB>): Promise<SourceTable[]> {
  const { rows } = await sql<{
    name: string;
  }>`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name`.execute(db);
  const tables: SourceTable[] = [];
  for (const { name } of rows) {
    const columns = await sql<{ name: string }>`SELECT name FROM pragma_table_info(${name}) ORDER BY cid`.execute(db);
    const parents = await sql<{ table: string }>`SELECT DISTINCT "table" FROM pragma_foreign_key_list(${name})`.execute(db);
    tables.push({ name, columns: columns.rows.map((c) => c.name), parents: parents.rows.map((p) => p.table).filter((p) => p !== name) });
  }
  return dependencyOrder(tables);
}

/** The target's tables of its current schema, Kysely's own aside, with their columns. */
export async function readTargetTables(target: Database): Promise<Map<string, TargetColumn[]>> {
  const { rows } = await sql<{
    table: string;
    column: string;
    type: string;
    identity: string | null;
    default: string | null;
  }>`SELECT table_name AS "table", column_name AS "column", udt_name AS "type", identity_generation AS "identity", column_default AS "default"
     FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name IN (SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE')
     ORDER BY table_name, ordinal_position`.execute(target.db.withoutPlugins());
  const tables = new Map<string, TargetColumn[]>();
  for (const row of rows) {
    if (row.table.startsWith('kysely_migration')) continue;
    const columns = tables.get(row.table) ?? [];
    columns.push({
      name: row.column,
      type: row.type,
      identityAlways: row.identity === 'ALWAYS',
      sequence: row.identity !== null || /^nextval\(/.test(row.default ?? ''),
    });
    tables.set(row.table, columns);
  }
  return tables;
}

/**
 * Matches the source's tables with the target's: each table not skipped is copied, in the source's
 * dependency order, with the target's column types. Refuses (naming each) a table or column that only
 * one side has: copying it would lose it, or leave the target's without the rows it expects.
 */
export function matchTables(source: SourceTable[], target: Map<string, TargetColumn[]>): CopiedTable[] {
  const problems: string[] = [];
  const copied: CopiedTable[] = [];
  for (const table of source) {
    if (skipReason(table.name) !== null) continue;
    const columns = target.get(table.name);
    if (!columns) {
      problems.push(`table ${table.name} is in the SQLite database but not on PostgreSQL, and is not one the move knows to leave out`);
      continue;
    }
    const targetNames = new Set(columns.map((c) => c.name));
    const sourceOnly = table.columns.filter((c) => !targetNames.has(c));
    const targetOnly = columns.filter((c) => !table.columns.includes(c.name)).map((c) => c.name);
    if (sourceOnly.length > 0) problems.push(`${table.name}: column(s) ${sourceOnly.join(', ')} only in the SQLite database`);
    if (targetOnly.length > 0) problems.push(`${table.name}: column(s) ${targetOnly.join(', ')} only on PostgreSQL`);
    copied.push({ name: table.name, columns: table.columns.map((name) => columns.find((c) => c.name === name)!).filter(Boolean) });
  }
  const sourceNames = new Set(source.map((t) => t.name));
  for (const name of target.keys()) {
    if (!sourceNames.has(name)) problems.push(`table ${name} is on PostgreSQL but not in the SQLite database`);
  }
  if (problems.length > 0) {
    throw new MoveRefusedError(
      "the two schemas do not match, so some data would not be copied (this program's migrations should give both the same tables):",
      problems,
    );
  }
  return copied;
}

/** Orders tables parents first (by their foreign keys), alphabetically among equals; a cycle is an error. */
function dependencyOrder(tables: SourceTable[]): SourceTable[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const ordered: SourceTable[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (table: SourceTable) => {
    const seen = state.get(table.name);
    if (seen === 'done') return;
    if (seen === 'visiting') throw new Error(`the foreign keys of table ${table.name} form a cycle: the move cannot order its tables`);
    state.set(table.name, 'visiting');
    for (const parent of table.parents) {
      const found = byName.get(parent);
      if (found) visit(found);
    }
    state.set(table.name, 'done');
    ordered.push(table);
  };
  for (const table of tables) visit(table);
  return ordered;
}
