import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/config.js';
import { ConfigError } from '../config/config.js';
import { openContext } from '../context.js';
import { Database, describeDatabase } from '../db/database.js';
import { countInstallation } from '../db/installation-counts.js';
import { dumpTables, PgToolError } from '../db/pg-dump.js';
import { postgresTableCount } from '../db/postgres-backup.js';
import { restorePostgresDump } from '../db/postgres-restore.js';
import { checkSqliteSchema, ForeignSchemaError } from '../db/sqlite-schema-check.js';
import { backupKind, copySqliteDatabase, isFormgateSqlite, sqliteTableCount } from '../db/sqlite-backup.js';
import { ProblemError } from '../errors.js';
import { createPrivateFileSync, makePrivateDirSync } from '../private-files.js';
import type { CommandResult } from './admin.js';
import { countsText } from './backup.js';

const stderrLog = { info: (message: string) => void process.stderr.write(`formgate: ${message}\n`) };
/** The tables every Formgate dump holds, whatever its version. */
const FORMGATE_TABLES = ['kysely_migration', 'settings', 'submissions'];

/** Why `file` cannot be restored into `config`'s database, before anything is written; null when it can. */
async function refusal(config: Config, file: string): Promise<string | null> {
  const kind = backupKind(file);
  const target = config.database.dialect;
  if (kind === 'postgres-plain') {
    return `${file} is a plain SQL dump: restore it with psql into an empty database (docs/operations.md, "Backing up and restoring"), then run \`formgate deliveries pause\` before starting Formgate on it`;
  }
  if (kind === 'unknown')
    return `${file} is not a Formgate backup: it is neither a SQLite database nor a pg_dump custom-format file (formgate backup makes one of these)`;
  if (kind === 'sqlite' && !isFormgateSqlite(file)) return `${file} is a SQLite database but not a Formgate backup: it holds no Formgate schema`;
  if (kind === 'sqlite' && target === 'postgres') {
    return `${file} is a backup of a SQLite installation and FORMGATE_DATABASE_URL points at PostgreSQL: restore it into a SQLite file (FORMGATE_DATABASE_URL=sqlite:/path/new.db), then copy that into PostgreSQL with \`formgate move --to postgres://…\``;
  }
  if (kind === 'postgres-custom' && target === 'sqlite') {
    return `${file} is a backup of a PostgreSQL installation and restores into PostgreSQL only: point FORMGATE_DATABASE_URL at an empty PostgreSQL database`;
  }
  if (kind === 'postgres-custom') {
    const tables = new Set(await dumpTables(file));
    if (!FORMGATE_TABLES.every((table) => tables.has(table))) return `${file} is a PostgreSQL dump but not a Formgate backup: it holds no Formgate schema`;
  }
  return null;
}

/** The target must be empty: a restore never mixes a backup with other data. */
async function refuseNonEmptyTarget(config: Config, file: string): Promise<void> {
  const target = describeDatabase(config.database);
  if (config.database.dialect === 'sqlite') {
    const targetFile = path.resolve(config.database.file);
    if (targetFile === ':memory:' || config.database.file === ':memory:')
      throw new ConfigError('FORMGATE_DATABASE_URL is sqlite::memory:; restore into a file');
    if (targetFile === path.resolve(file))
      throw new ProblemError('conflict', `the backup ${file} is the target database itself; point FORMGATE_DATABASE_URL at a new file`);
    const tables = sqliteTableCount(targetFile);
    if (tables > 0 || fs.existsSync(`${targetFile}-wal`)) throw new ProblemError('conflict', notEmpty(target, tables));
    return;
  }
  const database = Database.open(config.database);
  try {
    const tables = await postgresTableCount(database).catch((error: Error & { code?: string }) => {
      if (error.code === '3D000') throw new ConfigError(`the database ${target} does not exist: create it first (createdb), empty, then restore into it`);
      throw error;
    });
    if (tables > 0) throw new ProblemError('conflict', notEmpty(target, tables));
  } finally {
    await database.destroy();
  }
}

function notEmpty(target: string, tables: number): string {
  return `the target database ${target} is not empty (${tables} table${tables === 1 ? '' : 's'}): a restore goes into an empty database only; point FORMGATE_DATABASE_URL at a new one`;
}

/**
 * The backup checked (its schema exactly what the migrations make), copied page by page (no SQL of
 * it runs), and the copy checked again before anything migrates or serves it; a refused copy is removed.
 */
async function restoreSqlite(backupFile: string, target: string): Promise<void> {
  await checkSqliteSchema(backupFile);
  const existed = fs.existsSync(target);
  makePrivateDirSync(path.dirname(path.resolve(target)));
  createPrivateFileSync(target);
  try {
    await copySqliteDatabase(backupFile, target, { readonly: true });
    await checkSqliteSchema(target);
  } catch (error) {
    // the target was empty or not there (refuseNonEmptyTarget): it is left so again
    for (const suffix of ['-wal', '-shm', '-journal']) fs.rmSync(`${target}${suffix}`, { force: true });
    if (existed) fs.truncateSync(target, 0);
    else fs.rmSync(target, { force: true });
    throw error;
  }
}

async function restorePostgres(config: Config, backupFile: string): Promise<void> {
  if (config.database.dialect !== 'postgres') return;
  const database = Database.open(config.database);
  try {
    await restorePostgresDump(database, config.database.url, backupFile);
  } finally {
    await database.destroy();
  }
}

/** `formgate restore FILE`: into the configured, empty database; migrated if older; deliveries paused. */
export async function restore(config: Config, file: string): Promise<CommandResult> {
  const backupFile = path.resolve(file);
  if (!fs.existsSync(backupFile) || !fs.statSync(backupFile).isFile())
    throw new ProblemError('validation_error', `${backupFile} does not exist or is not a file`);
  const target = describeDatabase(config.database);
  try {
    const why = await refusal(config, backupFile);
    if (why) throw new ProblemError('validation_error', why);
    await refuseNonEmptyTarget(config, backupFile);
    if (config.database.dialect === 'sqlite') await restoreSqlite(backupFile, config.database.file);
    else await restorePostgres(config, backupFile);
  } catch (error) {
    if (error instanceof PgToolError && error.missing) throw new ConfigError(error.message);
    if (error instanceof ForeignSchemaError) throw new ProblemError('validation_error', error.message, { errors: error.objects });
    throw error;
  }
  // migrates a backup of an older version; refuses (NewerSchemaError) one of a newer version
  const ctx = await openContext(config, { existing: true, logger: stderrLog });
  try {
    const status = await ctx.deliveryPause.pause(`formgate restore of ${path.basename(backupFile)}`);
    const counts = await countInstallation(ctx.database.db);
    return {
      json: {
        file: backupFile,
        database: target,
        counts,
        schemaChecked: true,
        deliveriesPaused: true,
        pausedBy: status.pause?.by ?? null,
        waiting: counts.pendingDeliveries,
      },
      text: [
        `Restored ${backupFile} into ${target}: ${countsText(counts)}.`,
        "Its schema is exactly what Formgate's migrations make (checked before anything in it could run).",
        `Deliveries are paused: ${counts.pendingDeliveries.toLocaleString('en-US')} wait, and nothing is sent (no email, webhook or Slack message) until you resume.`,
        'A staging or test copy: leave them paused (and set FORMGATE_DELIVERIES=paused to be sure).',
        'The real installation, once you have checked it: `formgate deliveries resume` (each waiting delivery is sent once, with its usual webhook-id and Message-ID).',
      ],
    };
  } finally {
    await ctx.close();
  }
}
