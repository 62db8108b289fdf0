import fs from 'node:fs';
import SqliteDatabase from 'better-sqlite3';
import { DELIVERIES_PAUSED_KEY } from './deliveries-setting.js';
import { COUNTS_SQL, countsOf, type InstallationCounts } from './installation-counts.js';

/** The first 16 bytes of every SQLite database file. */
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');
/** The first bytes of pg_dump's custom format. */
const PG_CUSTOM_HEADER = Buffer.from('PGDMP', 'latin1');
// NOTE: the whole database in one step of the online backup: copied in steps, SQLite starts
// again from the first page each time another connection writes, which a steady stream of
// submissions does every few milliseconds. One step is one read transaction: a consistent copy
// that blocks no writer (WAL).
const ALL_PAGES = 0x7fffffff;

/** What a file to restore holds, judged by its first bytes. */
export type BackupKind = 'sqlite' | 'postgres-custom' | 'postgres-plain' | 'unknown';

export function backupKind(file: string): BackupKind {
  const fd = fs.openSync(file, 'r');
  try {
    const head = Buffer.alloc(512);
    const read = fs.readSync(fd, head, 0, head.length, 0);
    const bytes = head.subarray(0, read);
    if (bytes.subarray(0, SQLITE_HEADER.length).equals(SQLITE_HEADER)) return 'sqlite';
    if (bytes.subarray(0, PG_CUSTOM_HEADER.length).equals(PG_CUSTOM_HEADER)) return 'postgres-custom';
    if (bytes.toString('utf8').includes('PostgreSQL database dump')) return 'postgres-plain';
    return 'unknown';
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Copies a live SQLite database (another process may be writing to it: WAL) into `target`, an
 * empty file, through SQLite's online backup API: what is committed, WAL included, never a torn file.
 */
export async function copySqliteDatabase(source: string, target: string, options: { readonly?: boolean } = {}): Promise<void> {
  const from = new SqliteDatabase(source, { fileMustExist: true, readonly: options.readonly === true });
  try {
    from.pragma('busy_timeout = 5000');
    await from.backup(target, { progress: () => ALL_PAGES });
  } finally {
    from.close();
  }
}

/**
 * Makes a copied file a backup that stands on its own: deliveries marked paused (so that the file,
 * however it is put in place, starts paused), one file without a WAL beside it (rollback journal).
 */
export function sealSqliteBackup(file: string, pausedBy: string, now = Date.now()): void {
  const db = new SqliteDatabase(file, { fileMustExist: true });
  try {
    db.prepare('insert into settings (key, value, created_at) values (?, ?, ?) on conflict (key) do nothing').run(
      DELIVERIES_PAUSED_KEY,
      JSON.stringify({ at: new Date(now).toISOString(), by: pausedBy }),
      now,
    );
    db.pragma('journal_mode = DELETE');
  } finally {
    db.close();
  }
}

/** Whether a SQLite file holds Formgate's schema (a migration table with rows, and the submissions table). */
export function isFormgateSqlite(file: string): boolean {
  const db = new SqliteDatabase(file, { fileMustExist: true, readonly: true });
  try {
    const tables = new Set(db.prepare("select name from sqlite_master where type = 'table'").pluck().all() as string[]);
    if (!tables.has('kysely_migration') || !tables.has('submissions') || !tables.has('settings')) return false;
    return Number(db.prepare('select count(*) from kysely_migration').pluck().get()) > 0;
  } catch {
    return false;
  } finally {
    db.close();
  }
}

/** How many tables a SQLite file holds (0: empty or not there), to refuse restoring over data. */
export function sqliteTableCount(file: string): number {
  if (!fs.existsSync(file) || fs.statSync(file).size === 0) return 0;
  const db = new SqliteDatabase(file, { fileMustExist: true, readonly: true });
  try {
    return Number(db.prepare("select count(*) from sqlite_master where type = 'table'").pluck().get());
  } finally {
    db.close();
  }
}

/** The counts of a backup file, read without writing to it. */
export function countSqliteFile(file: string): InstallationCounts {
  const db = new SqliteDatabase(file, { fileMustExist: true, readonly: true });
  try {
    return countsOf(db.prepare(COUNTS_SQL).get() as Record<string, unknown>);
  } finally {
    db.close();
  }
}
