import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/config.js';
import { ConfigError } from '../config/config.js';
import { Database, describeDatabase, MissingDatabaseError } from '../db/database.js';
import type { InstallationCounts } from '../db/installation-counts.js';
import { PgToolError } from '../db/pg-dump.js';
import { dumpPostgres, postgresTableCount } from '../db/postgres-backup.js';
import { copySqliteDatabase, countSqliteFile, isFormgateSqlite, sealSqliteBackup } from '../db/sqlite-backup.js';
import { ProblemError } from '../errors.js';
import { createPrivateFileSync, makePrivateDirSync } from '../private-files.js';
import { VERSION } from '../version.js';
import type { CommandResult } from './admin.js';

/** Where `formgate backup` writes without --to: a folder of the data folder, private like it. */
export function defaultBackupDir(config: Config): string {
  return path.join(config.dataDir, 'backups');
}

/** formgate-2026-11-27T031000Z.db: sorts by time, and no colon (which some filesystems refuse). */
function defaultBackupName(config: Config, now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replaceAll(':', '');
  return `formgate-${stamp}.${config.database.dialect === 'sqlite' ? 'db' : 'pgdump'}`;
}

export function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let size = bytes / 1024;
  let unit = 0;
  while (size >= 1024 && unit < units.length - 1) {
    size /= 1024;
    unit++;
  }
  return `${size.toFixed(size < 10 ? 1 : 0)} ${units[unit]}`;
}

/** "3 accounts, 4 workspaces, 12 forms, 5,210 submissions, 7 pending deliveries" */
export function countsText(counts: InstallationCounts): string {
  const n = (value: number, one: string, many: string) => `${value.toLocaleString('en-US')} ${value === 1 ? one : many}`;
  return [
    n(counts.accounts, 'account', 'accounts'),
    n(counts.workspaces, 'workspace', 'workspaces'),
    n(counts.forms, 'form', 'forms'),
    n(counts.submissions, 'submission', 'submissions'),
    n(counts.pendingDeliveries, 'pending delivery', 'pending deliveries'),
  ].join(', ');
}

/** The target file: new or empty, in a folder that exists (the default folder is made, 0700). */
function prepareTarget(config: Config, to: string | undefined, now: Date): string {
  const file = path.resolve(to ?? path.join(defaultBackupDir(config), defaultBackupName(config, now)));
  if (to === undefined) makePrivateDirSync(path.dirname(file));
  else if (!fs.existsSync(path.dirname(file))) throw new ProblemError('validation_error', `--to: the folder ${path.dirname(file)} does not exist`);
  if (fs.existsSync(file) && fs.statSync(file).size > 0)
    throw new ProblemError('conflict', `${file} already exists; a backup never overwrites a file: choose another --to`);
  createPrivateFileSync(file);
  return file;
}

/** `formgate backup [--to FILE]`: a consistent copy of the running installation, and how to restore it. */
export async function backup(config: Config, options: { to?: string }): Promise<CommandResult> {
  const now = new Date();
  const source = describeDatabase(config.database);
  if (config.database.dialect === 'sqlite' && (config.database.file === ':memory:' || !fs.existsSync(config.database.file))) {
    throw new MissingDatabaseError(config.database);
  }
  const file = prepareTarget(config, options.to, now);
  let counts: InstallationCounts;
  try {
    counts =
      config.database.dialect === 'sqlite' ? await backupSqlite(config.database.file, file, now) : await backupPostgres(config, config.database.url, file);
  } catch (error) {
    fs.rmSync(file, { force: true });
    if (error instanceof PgToolError && error.missing) throw new ConfigError(error.message);
    throw error;
  }
  const bytes = fs.statSync(file).size;
  const restore = restoreCommand(config, file);
  return {
    json: { file, bytes, database: source, dialect: config.database.dialect, takenAt: now.toISOString(), version: VERSION, counts, restore },
    text: [
      `Saved a backup of ${source} to ${file} (${humanSize(bytes)}).`,
      `It holds ${countsText(counts)}.`,
      'Restore it into an empty database (a restored copy starts with deliveries paused):',
      `  ${restore}`,
    ],
  };
}

/** The command that restores `file`: into a new SQLite file beside the database, or a new PostgreSQL database on its server. */
function restoreCommand(config: Config, file: string): string {
  if (config.database.dialect === 'sqlite') {
    const target = path.join(path.dirname(path.resolve(config.database.file)), 'formgate-restored.db');
    return `FORMGATE_DATABASE_URL=sqlite:${target} formgate restore ${file}`;
  }
  const url = new URL(config.database.url);
  const flags = [
    url.hostname && `--host=${url.hostname}`,
    url.port && `--port=${url.port}`,
    url.username && `--username=${decodeURIComponent(url.username)}`,
  ].filter(Boolean);
  url.pathname = '/formgate_restored';
  if (url.password) url.password = '***';
  return `createdb ${[...flags, 'formgate_restored'].join(' ')} && FORMGATE_DATABASE_URL=${url} formgate restore ${file}`;
}

async function backupSqlite(source: string, file: string, now: Date): Promise<InstallationCounts> {
  if (!isFormgateSqlite(source)) throw new MissingDatabaseError({ dialect: 'sqlite', file: source }, 'holds no Formgate data');
  await copySqliteDatabase(source, file);
  // NOTE: the copy itself is marked paused: however it is put back (restore, or copied into place
  // by hand), it sends nothing until someone resumes deliveries
  sealSqliteBackup(file, `formgate backup at ${now.toISOString()} (a restored copy starts paused)`, now.getTime());
  return countSqliteFile(file);
}

async function backupPostgres(config: Config, url: string, file: string): Promise<InstallationCounts> {
  const database = Database.open(config.database, { mustExist: true });
  try {
    const tables = await postgresTableCount(database).catch((error: Error & { code?: string }) => {
      if (error.code === '3D000') throw new MissingDatabaseError(config.database);
      throw error;
    });
    if (tables === 0) throw new MissingDatabaseError(config.database, 'holds no Formgate data');
    return await dumpPostgres(database, url, file);
  } finally {
    await database.destroy();
  }
}
