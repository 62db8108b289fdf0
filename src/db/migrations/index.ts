import type { Kysely } from 'kysely';
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
        const timed = (name: string, m: Migration) => async (db: Kysely<any>) => {
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
