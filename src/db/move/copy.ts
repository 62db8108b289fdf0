// The copy of `formgate move`: each table read from SQLite a batch at a time (by rowid) and written to
// PostgreSQL in multi-row INSERTs, with the source's checksum taken of the very rows written.
import { CompiledQuery, type Kysely, sql } from 'kysely';
import { kindOf, TableChecksum, toPostgres } from './values.js';
import type { DB } from '../schema/index.js';
import type { CopiedTable } from './schema.js';

/** Rows read from SQLite at a time, and written in one INSERT (fewer when the columns are many). */
export const BATCH_ROWS = 2_000;
// PostgreSQL takes at most 65,535 parameters in one statement
const MAX_PARAMETERS = 60_000;

/** What the copy reports after each batch. */
export type CopyProgress = (table: string, rows: number) => void;

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Copies `table` from `read` (SQLite, inside the caller's read transaction) into `write` (PostgreSQL,
 * inside the caller's transaction); returns the checksum of the rows copied. Memory holds one batch.
 */
export async function copyTable(read: Kysely<DB>, write: Kysely<DB>, table: CopiedTable, progress: CopyProgress): Promise<TableChecksum> {
  const names = table.columns.map((c) => c.name);
  const kinds = table.columns.map((c) => kindOf(c.type));
  const checksum = new TableChecksum(kinds);
  const select = `SELECT rowid AS "__move_rowid", ${names.map(quote).join(', ')} FROM ${quote(table.name)} WHERE rowid > ? ORDER BY rowid LIMIT ${BATCH_ROWS}`;
  const overriding = table.columns.some((c) => c.identityAlways) ? ' OVERRIDING SYSTEM VALUE' : '';
  const head = `INSERT INTO ${quote(table.name)} (${names.map(quote).join(', ')})${overriding} VALUES `;
  const rowsPerInsert = Math.max(1, Math.min(BATCH_ROWS, Math.floor(MAX_PARAMETERS / names.length)));
  let after = Number.MIN_SAFE_INTEGER;
  for (;;) {
    const { rows } = await read.executeQuery<Record<string, unknown>>(CompiledQuery.raw(select, [after]));
    if (rows.length === 0) break;
    for (let start = 0; start < rows.length; start += rowsPerInsert) {
      const parameters: unknown[] = [];
      const tuples: string[] = [];
      for (const row of rows.slice(start, start + rowsPerInsert)) {
        const values = names.map((name) => row[name]);
        checksum.add(values);
        const slots = values.map((value, i) => {
          parameters.push(toPostgres(value, kinds[i]!));
          return `$${parameters.length}`;
        });
        tuples.push(`(${slots.join(', ')})`);
      }
      await write.executeQuery(CompiledQuery.raw(head + tuples.join(', '), parameters));
    }
    after = Number(rows.at(-1)!.__move_rowid);
    progress(table.name, rows.length);
    if (rows.length < BATCH_ROWS) break;
  }
  return checksum;
}

/** Sets each sequence of `table` (identity and serial columns) past the values copied, so the next row gets a new one. */
export async function advanceSequences(write: Kysely<DB>, table: CopiedTable): Promise<void> {
  for (const column of table.columns.filter((c) => c.sequence)) {
    await sql`SELECT setval(pg_get_serial_sequence(${quote(table.name)}, ${column.name}),
      COALESCE((SELECT max(${sql.ref(column.name)}) FROM ${sql.table(table.name)}), 0) + 1, false)`.execute(write);
  }
}

/**
 * The checksum of `table` as PostgreSQL now holds it, read back through a cursor a batch at a time
 * (bounded memory), computed as the copy computed the source's.
 */
export async function checksumTarget(target: Kysely<DB>, table: CopiedTable, progress: CopyProgress): Promise<TableChecksum> {
  const names = table.columns.map((c) => c.name);
  const checksum = new TableChecksum(table.columns.map((c) => kindOf(c.type)));
  await target.transaction().execute(async (trx) => {
    await trx.executeQuery(CompiledQuery.raw(`DECLARE move_check NO SCROLL CURSOR FOR SELECT ${names.map(quote).join(', ')} FROM ${quote(table.name)}`));
    for (;;) {
      const { rows } = await trx.executeQuery<Record<string, unknown>>(CompiledQuery.raw(`FETCH ${BATCH_ROWS} FROM move_check`));
      for (const row of rows) checksum.add(names.map((name) => row[name]));
      if (rows.length > 0) progress(table.name, rows.length);
      if (rows.length < BATCH_ROWS) break;
    }
    await trx.executeQuery(CompiledQuery.raw('CLOSE move_check'));
  });
  return checksum;
}
