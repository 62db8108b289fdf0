import { sql, type Kysely } from 'kysely';
import { Migrator, type MigrationResult } from 'kysely/migration';
import type { Database, Dialect } from '../database.js';
import { initial } from './0001-initial.js';
import { submissionSearch } from './0002-submission-search.js';
import { intake } from './0003-intake.js';
import { jobs } from './0004-jobs.js';
import { templates } from './0005-templates.js';
import { orderedJson } from './0006-ordered-json.js';
import { partialIndexes } from './0007-partial-indexes.js';
import { searchAutomerge } from './0008-search-automerge.js';
import { searchBacklog } from './0009-search-backlog.js';
import { changeCounts } from './0010-change-counts.js';
import { deliveryLanes } from './0011-delivery-lanes.js';
import { allowedOrigins } from './0012-allowed-origins.js';
import { dashboard } from './0013-dashboard.js';
import { formPages } from './0014-form-pages.js';
import { failedDeliveries } from './0015-failed-deliveries.js';
import { webhookDestinations } from './0016-webhook-destinations.js';
import { searchScope } from './0017-search-scope.js';
import { recipientConfirmations } from './0018-recipient-confirmations.js';
import { attemptAnswers } from './0019-attempt-answers.js';
import { formRetention } from './0020-form-retention.js';
import { fileUploads } from './0021-file-uploads.js';
import { dailyDashboard } from './0022-daily-dashboard.js';
import { changeFeed } from './0023-change-feed.js';
import { oneSearchIndex } from './0024-one-search-index.js';
import { storageLimits } from './0025-storage-limits.js';
import { accentFoldedSearch } from './0026-accent-folded-search.js';
import { webhookEndpoints } from './0027-webhook-endpoints.js';
import { altcha } from './0028-altcha.js';
import { spamLearning } from './0029-spam-learning.js';
import { spamDigest } from './0030-spam-digest.js';
import { spamJudges } from './0031-spam-judges.js';
import { triage } from './0032-triage.js';
import { assignedDigest } from './0033-assigned-digest.js';
import { labels } from './0034-labels.js';
import { formAssignedOpen } from './0036-form-assigned-open.js';
import { savedViews } from './0037-saved-views.js';
import { automations } from './0038-automations.js';
import { webhookBody } from './0039-webhook-body.js';
import { destinations } from './0040-destinations.js';
import { twoFactor } from './0041-two-factor.js';
import { auditLog } from './0042-audit-log.js';
import { singleSignOn } from './0043-single-sign-on.js';
import { passkeyChallenges } from './0044-passkey-challenges.js';
import { unreadCounts } from './0045-unread-counts.js';
import { refuseNewerSchema } from './newer-schema.js';

/** One schema change; `up` is told the dialect where the two must differ. */
export interface Migration {
  up(db: Kysely<any>, dialect: Dialect): Promise<void>;
}

// Append only: a migration that has shipped is never edited.
const MIGRATIONS: Record<string, Migration> = {
  '0001-initial': initial,
  '0002-submission-search': submissionSearch,
  '0003-intake': intake,
  '0004-jobs': jobs,
  '0005-templates': templates,
  '0006-ordered-json': orderedJson,
  '0007-partial-indexes': partialIndexes,
  '0008-search-automerge': searchAutomerge,
  '0009-search-backlog': searchBacklog,
  '0010-change-counts': changeCounts,
  '0011-delivery-lanes': deliveryLanes,
  '0012-allowed-origins': allowedOrigins,
  '0013-dashboard': dashboard,
  '0014-form-pages': formPages,
  '0015-failed-deliveries': failedDeliveries,
  '0016-webhook-destinations': webhookDestinations,
  '0017-search-scope': searchScope,
  '0018-recipient-confirmations': recipientConfirmations,
  '0019-attempt-answers': attemptAnswers,
  '0020-form-retention': formRetention,
  '0021-file-uploads': fileUploads,
  '0022-daily-dashboard': dailyDashboard,
  '0023-change-feed': changeFeed,
  '0024-one-search-index': oneSearchIndex,
  '0025-storage-limits': storageLimits,
  '0026-accent-folded-search': accentFoldedSearch,
  '0027-webhook-endpoints': webhookEndpoints,
  '0028-altcha': altcha,
  '0029-spam-learning': spamLearning,
  '0030-spam-digest': spamDigest,
  '0031-spam-judges': spamJudges,
  '0032-triage': triage,
  '0033-assigned-digest': assignedDigest,
  '0034-labels': labels,
  '0036-form-assigned-open': formAssignedOpen,
  '0037-saved-views': savedViews,
  '0038-automations': automations,
  '0039-webhook-body': webhookBody,
  '0040-destinations': destinations,
  '0041-two-factor': twoFactor,
  '0042-audit-log': auditLog,
  '0043-single-sign-on': singleSignOn,
  '0044-passkey-challenges': passkeyChallenges,
  '0045-unread-counts': unreadCounts,
};

/**
 * Brings the database to the newest schema; returns the names of the migrations applied, each told to
 * `applied` with its duration. A database migrated by a newer program is refused (NewerSchemaError,
 * naming `databaseName`) before anything is written.
 */
export async function migrateToLatest(
  database: Database,
  applied: (name: string, ms: number) => void = () => undefined,
  databaseName?: string,
): Promise<string[]> {
  await refuseNewerSchema(database, Object.keys(MIGRATIONS), databaseName);
  const migrator = new Migrator({
    db: database.db,
    provider: {
      async getMigrations() {
        let locked = false;
        const timed = (name: string, m: Migration) => async (db: Kysely<any>) => {
          // the run's first migration: on PostgreSQL, every table first (lockEveryTable)
          if (!locked && database.dialect === 'postgres') await lockEveryTable(db);
          locked = true;
          const started = performance.now();
          await m.up(db, database.dialect);
          applied(name, Math.round(performance.now() - started));
        };
        return Object.fromEntries(Object.entries(MIGRATIONS).map(([name, m]) => [name, { up: timed(name, m) }]));
      },
    },
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r: MigrationResult) => r.status === 'Error');
    throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed: ${(error as Error).message ?? error}`, { cause: error });
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** The names of this program's migrations, oldest first: a database migrated by it records exactly these. */
export function migrationNames(): string[] {
  return Object.keys(MIGRATIONS);
}

/** How long one try at the tables' locks waits, and how many tries a run makes (about 30 s in all). */
const LOCK_WAIT = '100ms';
const LOCK_TRIES = 300;
const LOCK_NOT_AVAILABLE = '55P03';

/**
 * On PostgreSQL, every table of the database is locked (ACCESS EXCLUSIVE) before the first migration
 * of a run, all in one statement that waits at most 100 ms and is tried again until it has them all.
 * NOTE: during a rolling upgrade the previous release goes on serving: its transactions hold some
 * tables and wait for others, while the migrations' DDL took one table after another, so the two
 * could wait for each other, and PostgreSQL broke the deadlock by failing a visitor's submission
 * (`test/upgrade/rolling-upgrade.test.ts` saw it in two runs of five). Holding everything before the
 * first change, the migrations never wait for anyone; the old release's requests wait for them
 * instead, and a try that cannot have every lock gives back what it took within 100 ms, far below
 * the second after which PostgreSQL looks for deadlocks.
 */
async function lockEveryTable(db: Kysely<any>): Promise<void> {
  const { rows } = await sql<{ name: string }>`SELECT tablename AS name FROM pg_tables
    WHERE schemaname = current_schema() AND tablename NOT IN ('kysely_migration', 'kysely_migration_lock') ORDER BY tablename`.execute(db);
  if (rows.length === 0) return;
  const tables = sql.join(rows.map((row) => sql.table(row.name)));
  for (let attempt = 1; ; attempt++) {
    await sql`SAVEPOINT lock_every_table`.execute(db);
    try {
      await sql.raw(`SET LOCAL lock_timeout = '${LOCK_WAIT}'`).execute(db);
      await sql`LOCK TABLE ${tables} IN ACCESS EXCLUSIVE MODE`.execute(db);
      await sql`RELEASE SAVEPOINT lock_every_table`.execute(db);
      await sql`SET LOCAL lock_timeout = 0`.execute(db);
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== LOCK_NOT_AVAILABLE || attempt >= LOCK_TRIES) throw error;
      await sql`ROLLBACK TO SAVEPOINT lock_every_table`.execute(db);
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 80));
    }
  }
}

/**
 * Migrates `db` up to the migration `last` and no further: the schema that a database at `last`
 * has, for `formgate restore` to hold a backup against (db/restore-check.ts). `db` is a new, empty
 * database (SQLite), or a transaction that the caller rolls back (PostgreSQL: DDL is transactional).
 */
export async function migrateUpTo(db: Kysely<any>, dialect: Dialect, last: string): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: {
      async getMigrations() {
        return Object.fromEntries(Object.entries(MIGRATIONS).map(([name, m]) => [name, { up: (on: Kysely<any>) => m.up(on, dialect) }]));
      },
    },
  });
  const { error, results } = await migrator.migrateTo(last);
  if (error) {
    const failed = results?.find((r: MigrationResult) => r.status === 'Error');
    throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed: ${(error as Error).message ?? error}`, { cause: error });
  }
}
