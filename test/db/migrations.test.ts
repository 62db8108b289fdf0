import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { sql, type Kysely } from 'kysely';
import { buildConfig } from '../../src/config/config.js';
import { Database } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrations/index.js';
import { scopeToken } from '../../src/db/search.js';
import { SearchIndexer } from '../../src/jobs/search-indexer.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../helpers/database.js';

/**
 * The committed description of the migrated schema, one per dialect. A migration that changes the
 * schema changes it on purpose: regenerate with
 *   UPDATE_SNAPSHOTS=1 FORMGATE_TEST_DB=sqlite node --import tsx --test test/db/migrations.test.ts
 * (and the same with postgres), then review and commit the diff.
 */
const SNAPSHOT = fileURLToPath(new URL(`../snapshots/schema.${TEST_DIALECT}.json`, import.meta.url));
const UPDATE = process.env.UPDATE_SNAPSHOTS === '1';

interface ColumnDescription {
  name: string;
  type: string;
  nullable: boolean;
  hasDefault: boolean;
}
interface IndexDescription {
  name: string;
  columns: string[];
  unique: boolean;
  /** A partial index's condition, as the database shows it. */
  where?: string;
}
interface SchemaDescription {
  dialect: string;
  tables: Record<string, { columns: ColumnDescription[]; indexes: IndexDescription[] }>;
  triggers: { name: string; table: string }[];
  /** PostgreSQL: the functions of the schema (an extension's aside), such as the triggers'. */
  functions?: string[];
}

/** JSON with one line per column, index and trigger, so that a snapshot diff reads line by line. */
function formatSnapshot(value: unknown, indent = ''): string {
  const flat = (v: unknown) =>
    v === null ||
    typeof v !== 'object' ||
    Object.values(v).every((x) => x === null || typeof x !== 'object' || (Array.isArray(x) && x.every((y) => typeof y !== 'object')));
  if (value === null || typeof value !== 'object' || flat(value)) return JSON.stringify(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((v) => inner + formatSnapshot(v, inner)).join(',\n')}\n${indent}]`;
  }
  const entries = Object.entries(value);
  return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${formatSnapshot(v, inner)}`).join(',\n')}\n${indent}}`;
}

const isKyselyTable = (name: string) => name.startsWith('kysely_migration');

/** Tables with their columns as Kysely's introspection reports them, their indexes, and the triggers. */
async function describeSchema(database: Database): Promise<SchemaDescription> {
  const db = database.db.withoutPlugins();
  const tables: SchemaDescription['tables'] = {};
  const introspected = await database.db.introspection.getTables({ withInternalKyselyTables: false });
  for (const table of [...introspected].sort((a, b) => a.name.localeCompare(b.name))) {
    if (isKyselyTable(table.name)) continue;
    tables[table.name] = {
      columns: table.columns.map((c) => ({ name: c.name, type: c.dataType, nullable: c.isNullable, hasDefault: c.hasDefaultValue })),
      indexes: [],
    };
  }

  const indexes: (IndexDescription & { table: string })[] = [];
  let triggers: { name: string; table: string }[];
  let functions: string[] | undefined;
  if (database.dialect === 'sqlite') {
    const rows = await sql<{ name: string; tbl_name: string; sql: string | null }>`select name, tbl_name, sql from sqlite_master where type = 'index'`.execute(
      db,
    );
    for (const row of rows.rows) {
      const columns = await sql<{ name: string | null }>`select name from pragma_index_info(${row.name}) order by seqno`.execute(db);
      const list = await sql<{ unique: number }>`select "unique" from pragma_index_list(${row.tbl_name}) where name = ${row.name}`.execute(db);
      const where = / WHERE (.*)$/is.exec(row.sql ?? '')?.[1];
      indexes.push({
        table: row.tbl_name,
        name: row.name,
        columns: columns.rows.map((c) => c.name ?? '(expression)'),
        unique: list.rows[0]?.unique === 1,
        where,
      });
    }
    const triggerRows = await sql<{ name: string; tbl_name: string }>`select name, tbl_name from sqlite_master where type = 'trigger'`.execute(db);
    triggers = triggerRows.rows.map((r) => ({ name: r.name, table: r.tbl_name }));
  } else {
    const rows = await sql<{ tablename: string; indexname: string; indexdef: string }>`
      select tablename, indexname, indexdef from pg_indexes where schemaname = current_schema()`.execute(db);
    for (const row of rows.rows) {
      // e.g. CREATE UNIQUE INDEX users_email_key ON public.users USING btree (email), and "… WHERE (…)" when partial
      const [definition, where] = row.indexdef.split(' WHERE ');
      const match = /\((.*)\)$/.exec(definition!);
      assert.ok(match, `an index definition with columns: ${row.indexdef}`);
      const columns = match[1]!.split(',').map((c) => c.trim().replace(/^"(.*)"$/, '$1'));
      indexes.push({ table: row.tablename, name: row.indexname, columns, unique: /^CREATE UNIQUE INDEX/i.test(row.indexdef), where });
    }
    const triggerRows = await sql<{ name: string; table: string }>`
      select distinct trigger_name as name, event_object_table as table from information_schema.triggers
      where trigger_schema = current_schema()`.execute(db);
    triggers = triggerRows.rows.map((r) => ({ name: r.name, table: r.table }));
    const functionRows = await sql<{ name: string }>`
      select p.proname as name from pg_proc p where p.pronamespace = current_schema()::regnamespace
      and not exists (select 1 from pg_depend d where d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e')`.execute(db);
    functions = functionRows.rows.map((r) => r.name).sort();
  }

  for (const index of indexes) {
    if (isKyselyTable(index.table)) continue;
    const table = tables[index.table];
    assert.ok(table, `index ${index.name} is on a known table (${index.table})`);
    table.indexes.push({ name: index.name, columns: index.columns, unique: index.unique, ...(index.where ? { where: index.where } : {}) });
  }
  for (const table of Object.values(tables)) table.indexes.sort((a, b) => a.name.localeCompare(b.name));
  triggers = triggers.filter((t) => !isKyselyTable(t.table)).sort((a, b) => a.name.localeCompare(b.name));
  return { dialect: database.dialect, tables, triggers, ...(functions ? { functions } : {}) };
}

async function migrationNames(database: Database): Promise<string[]> {
  const rows = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(database.db.withoutPlugins());
  return rows.rows.map((r) => r.name);
}

/** A user 'u1' with workspace 'w1' and form 'f1', written as raw rows (an upgrade test's schema is not the code's). */
async function insertForm(raw: Kysely<any>): Promise<void> {
  await sql`INSERT INTO users (id, email, created_at) VALUES ('u1', 'u1@example.com', 1)`.execute(raw);
  await sql`INSERT INTO workspaces (id, name, plan, owner_id, submissions_used, created_at, updated_at) VALUES ('w1', 'W', 'FREE', 'u1', 0, 1, 1)`.execute(raw);
  await sql`INSERT INTO forms (id, workspace_id, name, notification_emails, created_at, updated_at) VALUES ('f1', 'w1', 'F', '[]', 1, 1)`.execute(raw);
}

/** A new, empty database of the suite's dialect for the enclosing describe; `open` opens another connection to it. */
/**
 * Back to before 0014-form-pages (and 0015-failed-deliveries, 0016-webhook-destinations,
 * 0017-search-scope): the daily counts, the kept reasons, the indexes of failed jobs and of pending
 * webhooks by destination (jobs_due holding them again), the search index of every tenant.
 */
async function undoFormPages(raw: Kysely<any>, { searchScope = true } = {}): Promise<void> {
  if (searchScope) await undoSearchScope(raw);
  await sql`DROP INDEX jobs_due_webhooks`.execute(raw);
  await sql`DROP INDEX jobs_due`.execute(raw);
  await sql`CREATE INDEX jobs_due ON jobs (lane, run_at) WHERE status = 'pending'`.execute(raw);
  await sql`DROP INDEX jobs_failed`.execute(raw);
  await sql`DROP TABLE daily_counts`.execute(raw);
  await sql`ALTER TABLE submissions DROP COLUMN spam_reasons`.execute(raw);
  await sql`ALTER TABLE templates DROP COLUMN paused_reasons`.execute(raw);
}

/**
 * Back to before 0017-search-scope: on SQLite the instance-wide FTS5 index with its external content
 * (0002, 0008, 0009), holding every row not in the backlog; on PostgreSQL the trigram index alone.
 */
async function undoSearchScope(raw: Kysely<any>): Promise<void> {
  if (TEST_DIALECT === 'postgres') {
    await sql`CREATE INDEX submissions_search_trgm ON submissions USING gin (search_text gin_trgm_ops)`.execute(raw);
    await sql`DROP INDEX submissions_search_workspace`.execute(raw);
    await sql`DROP INDEX submissions_search_form`.execute(raw);
    return;
  }
  await sql`DROP TRIGGER submissions_search_delete`.execute(raw);
  await sql`DROP TABLE submissions_search`.execute(raw);
  await sql`CREATE VIRTUAL TABLE submissions_search USING fts5(search_text, tokenize = 'trigram', content = 'submissions', content_rowid = 'seq')`.execute(raw);
  await sql`INSERT INTO submissions_search (submissions_search, rank) VALUES ('automerge', 16)`.execute(raw);
  await sql`INSERT INTO submissions_search (submissions_search, rank) VALUES ('crisismerge', 64)`.execute(raw);
  await sql`CREATE TRIGGER submissions_search_delete AFTER DELETE ON submissions BEGIN
    INSERT INTO submissions_search (submissions_search, rowid, search_text)
      SELECT 'delete', old.seq, old.search_text WHERE NOT EXISTS (SELECT 1 FROM search_backlog WHERE seq = old.seq);
    DELETE FROM search_backlog WHERE seq = old.seq; END`.execute(raw);
  await sql`INSERT INTO submissions_search (rowid, search_text) SELECT seq, search_text FROM submissions
    WHERE seq NOT IN (SELECT seq FROM search_backlog) ORDER BY seq`.execute(raw);
}

/** Back to before 0013-dashboard: its tables, the admin flag and the admin's settings row. */
async function undoDashboard(raw: Kysely<any>): Promise<void> {
  for (const table of ['invitations', 'password_resets', 'sessions']) await sql`DROP TABLE ${sql.table(table)}`.execute(raw);
  await sql`DELETE FROM settings WHERE key = 'instance-admin'`.execute(raw);
  await sql`ALTER TABLE users DROP COLUMN is_admin`.execute(raw);
  await sql`DROP INDEX users_created_id`.execute(raw);
  await sql`DROP INDEX workspaces_created_id`.execute(raw);
}

/** Back to before 0018-recipient-confirmations: its table (and so its indexes). */
/** Back to before 0024-one-search-index: on PostgreSQL 0017's two trigram indexes (nothing on SQLite). */
async function undoOneSearchIndex(raw: Kysely<any>): Promise<void> {
  if (TEST_DIALECT !== 'postgres') return;
  await sql`CREATE INDEX submissions_search_workspace ON submissions USING gin (workspace_id, search_text gin_trgm_ops)`.execute(raw);
  await sql`CREATE INDEX submissions_search_form ON submissions USING gin (form_id, search_text gin_trgm_ops)`.execute(raw);
  await sql`DROP INDEX submissions_search`.execute(raw);
}

/** Back to before 0045-unread-counts: its triggers (and PostgreSQL's functions) and table, and 0022's partial index again. */
async function undoUnreadCounts(raw: Kysely<any>): Promise<void> {
  for (const trigger of ['submissions_unread_insert', 'submissions_unread_update', 'submissions_unread_delete']) {
    await sql`DROP TRIGGER ${sql.id(trigger)}${TEST_DIALECT === 'postgres' ? sql` ON submissions` : sql``}`.execute(raw);
  }
  if (TEST_DIALECT === 'postgres') await sql`DROP FUNCTION formgate_unread_added, formgate_unread_changed, formgate_unread_removed`.execute(raw);
  await sql`DROP TABLE unread_counts`.execute(raw);
  await sql`CREATE INDEX submissions_unread ON submissions (form_id) WHERE unread = 1 AND status = 'accepted'`.execute(raw);
}

/** Back to before 0044-passkey-challenges: its table (its index goes with it). */
async function undoPasskeyChallenges(raw: Kysely<any>): Promise<void> {
  await sql`DROP TABLE passkey_challenges`.execute(raw);
}

/** Back to before 0043-single-sign-on: its table (its index goes with it). */
async function undoSingleSignOn(raw: Kysely<any>): Promise<void> {
  await sql`DROP TABLE oidc_links`.execute(raw);
}

/** Back to before 0042-audit-log: its table (its indexes go with it). */
async function undoAuditLog(raw: Kysely<any>): Promise<void> {
  await sql`DROP TABLE audit_events`.execute(raw);
}

/** Back to before 0041-two-factor: its tables and columns. */
async function undoTwoFactor(raw: Kysely<any>): Promise<void> {
  await sql`DROP TABLE recovery_codes`.execute(raw);
  await sql`DROP TABLE passkeys`.execute(raw);
  await sql`DROP TABLE remembered_browsers`.execute(raw);
  for (const column of ['totp_secret', 'totp_last_step', 'second_factor_at']) await sql.raw(`ALTER TABLE users DROP COLUMN ${column}`).execute(raw);
  for (const column of ['user_agent', 'ip', 'second_factor_at']) await sql.raw(`ALTER TABLE sessions DROP COLUMN ${column}`).execute(raw);
  await sql`ALTER TABLE workspaces DROP COLUMN require_two_factor`.execute(raw);
}

/** Back to before 0040-destinations: its table (its triggers and index go with it). */
async function undoDestinations(raw: Kysely<any>): Promise<void> {
  await sql`DROP TABLE form_destinations`.execute(raw);
}

/** Back to before 0039-webhook-body: its columns. */
async function undoWebhookBody(raw: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE forms DROP COLUMN webhook_body_format`.execute(raw);
  await sql`ALTER TABLE forms DROP COLUMN webhook_body_template`.execute(raw);
}

/** Back to before 0038-automations: its tables (their triggers and indexes go with them). */
async function undoAutomations(raw: Kysely<any>): Promise<void> {
  await sql`DROP TABLE hooks`.execute(raw);
  await sql`DROP TABLE automation_keys`.execute(raw);
}

/** Back to before 0037-saved-views: its column. */
async function undoSavedViews(raw: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE workspace_members DROP COLUMN saved_views`.execute(raw);
}

/** Back to before 0036-form-assigned-open: its index. */
async function undoFormAssignedOpen(raw: Kysely<any>): Promise<void> {
  await sql`DROP INDEX submissions_form_assigned_open`.execute(raw);
}

/** Back to before 0034-labels: its tables (their indexes with them). */
async function undoLabels(raw: Kysely<any>): Promise<void> {
  for (const table of ['submission_labels', 'labels']) await sql`DROP TABLE ${sql.table(table)}`.execute(raw);
}

/** Back to before 0033-assigned-digest: its index, then its columns. */
async function undoAssignedDigest(raw: Kysely<any>): Promise<void> {
  await sql`DROP INDEX submissions_assigned_open`.execute(raw);
  for (const column of ['assigned_digest_sent_at', 'assigned_digest']) await sql`ALTER TABLE workspace_members DROP COLUMN ${sql.ref(column)}`.execute(raw);
}

/** Back to before 0032-triage: its indexes, then its columns. */
async function undoTriage(raw: Kysely<any>): Promise<void> {
  for (const index of ['submissions_form_open', 'submissions_workspace_open', 'submissions_assigned']) await sql`DROP INDEX ${sql.ref(index)}`.execute(raw);
  for (const column of ['assignee_id', 'done_at']) await sql`ALTER TABLE submissions DROP COLUMN ${sql.ref(column)}`.execute(raw);
}

/** Back to before 0031-spam-judges: the trigger as 0022 (SQLite) and 0023 (PostgreSQL) made it, then its columns. */
async function undoSpamJudges(raw: Kysely<any>): Promise<void> {
  const columns =
    'workspace_id, custom_honeypot, custom_spam_words, spam_protection, notification_emails, slack_channel, webhook_url, allowed_origins, uploads_enabled, upload_limits, ' +
    'redirect_url, thanks_title, thanks_message, paused, closes_at, max_submissions, chat_channels';
  if (TEST_DIALECT === 'sqlite') {
    await sql`DROP TRIGGER forms_intake_update`.execute(raw);
    await sql
      .raw(`CREATE TRIGGER forms_intake_update AFTER UPDATE OF ${columns} ON forms BEGIN UPDATE change_counts SET n = n + 1 WHERE name = 'intake_forms'; END`)
      .execute(raw);
  } else {
    await sql`DROP TRIGGER forms_intake_update ON forms`.execute(raw);
    await sql
      .raw(`CREATE TRIGGER forms_intake_update AFTER UPDATE OF ${columns} ON forms FOR EACH STATEMENT EXECUTE FUNCTION formgate_notify_change('intake_forms')`)
      .execute(raw);
  }
  for (const column of ['spam_assassin', 'flag_disposable_addresses', 'flag_same_message'])
    await sql`ALTER TABLE forms DROP COLUMN ${sql.ref(column)}`.execute(raw);
}

/** Back to before 0030-spam-digest: its table and column. */
async function undoSpamDigest(raw: Kysely<any>): Promise<void> {
  await sql`DROP TABLE spam_digests`.execute(raw);
  await sql`ALTER TABLE workspace_members DROP COLUMN spam_digest`.execute(raw);
}

/** Back to before 0029-spam-learning: its tables (their triggers with them), column and change count. */
async function undoSpamLearning(raw: Kysely<any>): Promise<void> {
  await sql`DROP TABLE spam_tokens`.execute(raw);
  await sql`DROP TABLE spam_models`.execute(raw);
  await sql`ALTER TABLE submissions DROP COLUMN spam_lesson`.execute(raw);
  if (TEST_DIALECT === 'sqlite') await sql`DELETE FROM change_counts WHERE name = 'spam_models'`.execute(raw);
}

/** Back to before 0028-altcha: its table (and so its index). */
async function undoAltcha(raw: Kysely<any>): Promise<void> {
  await sql`DROP TABLE altcha_spent_challenges`.execute(raw);
}

/** Back to before 0027-webhook-endpoints: its columns. */
async function undoWebhookEndpoints(raw: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE jobs DROP COLUMN not_before`.execute(raw);
  await sql`ALTER TABLE forms DROP COLUMN webhook_disabled_at`.execute(raw);
  await sql`ALTER TABLE forms DROP COLUMN webhook_disabled_reason`.execute(raw);
  await sql`ALTER TABLE job_attempts DROP COLUMN target`.execute(raw);
}

/** Back to before 0025-storage-limits: its tables and column. */
async function undoStorageLimits(raw: Kysely<any>): Promise<void> {
  await sql`DROP TABLE spam_days`.execute(raw);
  await sql`DROP TABLE file_reservations`.execute(raw);
  await sql`ALTER TABLE workspaces DROP COLUMN file_bytes_reserved`.execute(raw);
}

/** Back to before 0023-change-feed: on PostgreSQL its triggers and their function (nothing on SQLite). */
async function undoChangeFeed(raw: Kysely<any>): Promise<void> {
  if (TEST_DIALECT !== 'postgres') return;
  await sql`DROP FUNCTION formgate_notify_change() CASCADE`.execute(raw);
}

/** Back to before 0022-daily-dashboard: its columns and index, and on SQLite 0021's trigger as it was. */
async function undoDailyDashboard(raw: Kysely<any>): Promise<void> {
  if (TEST_DIALECT === 'sqlite') {
    await sql`DROP TRIGGER forms_intake_update`.execute(raw);
    await sql`CREATE TRIGGER forms_intake_update AFTER UPDATE OF workspace_id, custom_honeypot, custom_spam_words, spam_protection, notification_emails, slack_channel, webhook_url, allowed_origins, uploads_enabled, upload_limits ON forms
      BEGIN UPDATE change_counts SET n = n + 1 WHERE name = 'intake_forms'; END`.execute(raw);
  }
  await sql`DROP INDEX submissions_unread`.execute(raw);
  for (const column of [
    'redirect_url',
    'thanks_title',
    'thanks_message',
    'notification_subject',
    'notification_from_name',
    'autoresponse_subject',
    'autoresponse_from_name',
    'paused',
    'closes_at',
    'max_submissions',
    'chat_channels',
  ]) {
    await sql`ALTER TABLE forms DROP COLUMN ${sql.ref(column)}`.execute(raw);
  }
  await sql`ALTER TABLE submissions DROP COLUMN note`.execute(raw);
  await sql`ALTER TABLE submissions DROP COLUMN unread`.execute(raw);
  await sql`ALTER TABLE users DROP COLUMN disabled_at`.execute(raw);
  await sql`ALTER TABLE users DROP COLUMN time_zone`.execute(raw);
}

/** Back to before 0021-file-uploads: its tables and columns, and on SQLite 0012's trigger as it was. */
async function undoFileUploads(raw: Kysely<any>): Promise<void> {
  await sql`DROP TABLE unclaimed_files`.execute(raw);
  await sql`DROP TABLE submission_files`.execute(raw);
  if (TEST_DIALECT === 'sqlite') {
    await sql`DROP TRIGGER forms_intake_update`.execute(raw);
    await sql`CREATE TRIGGER forms_intake_update AFTER UPDATE OF workspace_id, custom_honeypot, custom_spam_words, spam_protection, notification_emails, slack_channel, webhook_url, allowed_origins ON forms
      BEGIN UPDATE change_counts SET n = n + 1 WHERE name = 'intake_forms'; END`.execute(raw);
  }
  await sql`ALTER TABLE forms DROP COLUMN upload_limits`.execute(raw);
  await sql`ALTER TABLE forms DROP COLUMN uploads_enabled`.execute(raw);
  await sql`ALTER TABLE workspaces DROP COLUMN file_bytes`.execute(raw);
}

/** Back to the forms table before 0020-form-retention: its column and its partial index. */
async function undoFormRetention(raw: Kysely<any>): Promise<void> {
  await sql`DROP INDEX forms_retention`.execute(raw);
  await sql`ALTER TABLE forms DROP COLUMN retention_days`.execute(raw);
}

/** Back to the job_attempts table before 0019-attempt-answers. */
async function undoAttemptAnswers(raw: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE job_attempts DROP COLUMN written_to`.execute(raw);
  await sql`ALTER TABLE job_attempts DROP COLUMN response`.execute(raw);
}

async function undoRecipientConfirmations(raw: Kysely<any>): Promise<void> {
  await sql`DROP TABLE recipient_confirmations`.execute(raw);
}

/** Back to the forms table before 0012-allowed-origins: its column, and on SQLite 0010's trigger as it was. */
async function undoAllowedOrigins(raw: Kysely<any>): Promise<void> {
  if (TEST_DIALECT === 'sqlite') {
    await sql`DROP TRIGGER forms_intake_update`.execute(raw);
    await sql`CREATE TRIGGER forms_intake_update AFTER UPDATE OF workspace_id, custom_honeypot, custom_spam_words, spam_protection, notification_emails, slack_channel, webhook_url ON forms
      BEGIN UPDATE change_counts SET n = n + 1 WHERE name = 'intake_forms'; END`.execute(raw);
  }
  await sql`ALTER TABLE forms DROP COLUMN allowed_origins`.execute(raw);
}

/** Back to the jobs table before 0011-delivery-lanes (its columns and indexes undone). */
async function undoDeliveryLanes(raw: Kysely<any>): Promise<void> {
  await sql`DROP INDEX jobs_due`.execute(raw);
  await sql`DROP INDEX jobs_backed_off`.execute(raw);
  await sql`CREATE INDEX jobs_status_run_at ON jobs (status, run_at)`.execute(raw);
  for (const column of ['lane', 'destination', 'try_started_at']) await sql`ALTER TABLE jobs DROP COLUMN ${sql.ref(column)}`.execute(raw);
}

function freshDatabase() {
  const fresh = {
    testDatabase: undefined as unknown as TestDatabase,
    database: undefined as unknown as Database,
    open: () => Database.open(buildConfig({ databaseUrl: fresh.testDatabase.url, dataDir: fresh.testDatabase.dataDir }).database),
  };
  before(async () => {
    fresh.testDatabase = await createTestDatabase();
    fresh.database = fresh.open();
  });
  after(async () => {
    await fresh.database?.destroy();
    await fresh.testDatabase?.drop();
  });
  return fresh;
}

describe(`migrations (${TEST_DIALECT})`, () => {
  const fresh = freshDatabase();
  let applied: string[];

  it('migrates an empty database, applying every migration in order', async () => {
    assert.deepEqual(await fresh.database.db.introspection.getTables(), [], 'the database starts empty');
    applied = await migrateToLatest(fresh.database);
    assert.ok(applied.length >= 1);
    assert.equal(applied[0], '0001-initial');
    assert.deepEqual(applied, [...applied].sort(), 'in name order');
    assert.deepEqual(await migrationNames(fresh.database), applied, 'each recorded once');
  });

  it(`matches the committed schema snapshot (test/snapshots/schema.${TEST_DIALECT}.json)`, async (t) => {
    const schema = await describeSchema(fresh.database);
    for (const table of ['settings', 'users', 'workspaces', 'workspace_members', 'tokens', 'forms', 'form_secrets', 'submissions']) {
      assert.ok(schema.tables[table], `table ${table} exists`);
    }
    assert.ok(!Object.keys(schema.tables).some(isKyselyTable), 'Kysely’s own tables are left out');

    if (UPDATE) {
      fs.mkdirSync(new URL('../snapshots/', import.meta.url), { recursive: true });
      fs.writeFileSync(SNAPSHOT, `${formatSnapshot(schema)}\n`);
      t.diagnostic(`wrote ${SNAPSHOT}`);
      return;
    }
    assert.ok(fs.existsSync(SNAPSHOT), `${SNAPSHOT} is missing; run once with UPDATE_SNAPSHOTS=1`);
    const expected = JSON.parse(fs.readFileSync(SNAPSHOT, 'utf8')) as SchemaDescription;
    assert.deepEqual(schema, expected, 'the migrated schema differs from the snapshot; if intended, regenerate it with UPDATE_SNAPSHOTS=1');
  });

  it('sets SQLite’s search index to merge its segments at 16 of a size (0008)', { skip: TEST_DIALECT !== 'sqlite' && 'SQLite only' }, async () => {
    const config = await sql<{ k: string; v: number }>`SELECT k, v FROM submissions_search_config WHERE k = 'automerge'`.execute(
      fresh.database.db.withoutPlugins(),
    );
    assert.deepEqual(config.rows, [{ k: 'automerge', v: 16 }]);
  });

  it('migrating again is a no-op, on the same connection and on a new one', async () => {
    const before = await describeSchema(fresh.database);
    assert.deepEqual(await migrateToLatest(fresh.database), [], 'nothing applied the second time');

    const reopened = fresh.open();
    try {
      assert.deepEqual(await migrateToLatest(reopened), [], 'nothing applied by another connection either');
    } finally {
      await reopened.destroy();
    }
    assert.deepEqual(await migrationNames(fresh.database), applied, 'no migration recorded twice');
    assert.deepEqual(await describeSchema(fresh.database), before, 'the schema is unchanged');
  });
});

describe('0006-ordered-json: upgrading a PostgreSQL database that holds submissions', {
  skip: TEST_DIALECT !== 'postgres' && 'PostgreSQL only (the migration changes nothing on SQLite)',
}, () => {
  const fresh = freshDatabase();

  it('keeps every stored field, control and payload, now as json text; then 0007 makes the rare indexes partial', async () => {
    await migrateToLatest(fresh.database);
    const raw = fresh.database.db.withoutPlugins();
    // back to the schema before 0006 (and 0007, which follows it), with rows written then
    await sql`DROP INDEX submissions_spam_created`.execute(raw);
    await sql`DROP INDEX submissions_held_seq`.execute(raw);
    await sql`CREATE INDEX submissions_status_created ON submissions (status, created_at)`.execute(raw);
    await sql`CREATE INDEX submissions_workspace_status_seq ON submissions (workspace_id, status, seq)`.execute(raw);
    await sql`ALTER TABLE submissions ALTER COLUMN data TYPE jsonb USING data::jsonb, ALTER COLUMN email_controls TYPE jsonb USING email_controls::jsonb`.execute(
      raw,
    );
    await sql`ALTER TABLE jobs ALTER COLUMN payload TYPE jsonb USING payload::jsonb`.execute(raw);
    await undoUnreadCounts(raw);
    await undoPasskeyChallenges(raw);
    await undoSingleSignOn(raw);
    await undoAuditLog(raw);
    await undoTwoFactor(raw);
    await undoDestinations(raw);
    await undoWebhookBody(raw);
    await undoAutomations(raw);
    await undoSavedViews(raw);
    await undoFormAssignedOpen(raw);
    await undoLabels(raw);
    await undoAssignedDigest(raw);
    await undoTriage(raw);
    await undoSpamJudges(raw);
    await undoSpamDigest(raw);
    await undoSpamLearning(raw);
    await undoAltcha(raw);
    await undoWebhookEndpoints(raw);
    await undoStorageLimits(raw);
    await undoOneSearchIndex(raw);
    await undoChangeFeed(raw);
    await undoDailyDashboard(raw);
    await undoFileUploads(raw);
    await undoFormRetention(raw);
    await undoAttemptAnswers(raw);
    await undoRecipientConfirmations(raw);
    await undoFormPages(raw);
    await undoDashboard(raw);
    await sql`ALTER TABLE forms DROP COLUMN allowed_origins`.execute(raw);
    await undoDeliveryLanes(raw);
    // 0006 and every migration after it run again (after 0007, only 0011 to 0014 change something on PostgreSQL: what was undone above)
    const rerun = (await sql<{ name: string }>`SELECT name FROM kysely_migration WHERE name >= '0006' ORDER BY name`.execute(raw)).rows.map((r) => r.name);
    await sql`DELETE FROM kysely_migration WHERE name >= '0006'`.execute(raw);
    await insertForm(raw);
    const data = { message: 'héllo "x"', name: 'Ann', list: ['a', { b: 1 }] };
    await sql`INSERT INTO submissions (id, form_id, workspace_id, data, email_controls, status, created_at) VALUES ('s1', 'f1', 'w1', ${JSON.stringify(data)}, ${JSON.stringify({ _replyto: 'a@example.com' })}, 'accepted', 1)`.execute(
      raw,
    );
    await sql`INSERT INTO jobs (id, kind, payload, status, run_at, submission_id, idempotency_key, created_at, updated_at) VALUES ('j1', 'webhook', ${JSON.stringify({ url: 'https://example.com', fields: data })}, 'pending', 1, 's1', 's1', 1, 1)`.execute(
      raw,
    );

    assert.deepEqual(rerun.slice(0, 2), ['0006-ordered-json', '0007-partial-indexes']);
    assert.deepEqual(await migrateToLatest(fresh.database), rerun);
    const form = await fresh.database.db.selectFrom('forms').select('allowedOrigins').where('id', '=', 'f1').executeTakeFirstOrThrow();
    assert.deepEqual(form.allowedOrigins, [], 'a form from before 0012 lists no origins: any site may post, as before');
    assert.deepEqual(await describeSchema(fresh.database), JSON.parse(fs.readFileSync(SNAPSHOT, 'utf8')), 'upgraded, the schema is the fresh one');
    const submission = await fresh.database.db.selectFrom('submissions').select(['data', 'emailControls']).where('id', '=', 's1').executeTakeFirstOrThrow();
    assert.equal(typeof submission.data, 'string', 'json arrives as text');
    assert.deepEqual(JSON.parse(submission.data as string), data);
    assert.deepEqual(JSON.parse(submission.emailControls as string), { _replyto: 'a@example.com' });
    const job = await fresh.database.db.selectFrom('jobs').select('payload').where('id', '=', 'j1').executeTakeFirstOrThrow();
    assert.deepEqual(JSON.parse(job.payload as string), { url: 'https://example.com', fields: data });
  });
});

describe('0009-search-backlog: upgrading a SQLite database that holds submissions', {
  skip: TEST_DIALECT !== 'sqlite' && 'SQLite only (the migration changes nothing on PostgreSQL)',
}, () => {
  const fresh = freshDatabase();

  it('keeps the rows indexed before it searchable, and notes only new rows in the backlog', async () => {
    await migrateToLatest(fresh.database);
    const raw = fresh.database.db.withoutPlugins();
    await undoUnreadCounts(raw);
    await undoPasskeyChallenges(raw);
    await undoSingleSignOn(raw);
    await undoAuditLog(raw);
    await undoTwoFactor(raw);
    await undoDestinations(raw);
    await undoWebhookBody(raw);
    await undoAutomations(raw);
    await undoSavedViews(raw);
    await undoFormAssignedOpen(raw);
    await undoLabels(raw);
    await undoAssignedDigest(raw);
    await undoTriage(raw);
    await undoSpamJudges(raw);
    await undoSpamDigest(raw);
    await undoSpamLearning(raw);
    await undoAltcha(raw);
    await undoWebhookEndpoints(raw);
    await undoStorageLimits(raw);
    await undoOneSearchIndex(raw);
    await undoChangeFeed(raw);
    await undoDailyDashboard(raw);
    await undoFileUploads(raw);
    await undoSearchScope(raw);
    // back to 0008's schema, where the insert trigger wrote the index itself
    await sql`DROP TABLE search_backlog`.execute(raw);
    await sql`DROP TRIGGER submissions_search_insert`.execute(raw);
    await sql`DROP TRIGGER submissions_search_delete`.execute(raw);
    await sql`CREATE TRIGGER submissions_search_insert AFTER INSERT ON submissions BEGIN
      INSERT INTO submissions_search (rowid, search_text) VALUES (new.seq, new.search_text); END`.execute(raw);
    await sql`CREATE TRIGGER submissions_search_delete AFTER DELETE ON submissions BEGIN
      INSERT INTO submissions_search (submissions_search, rowid, search_text) VALUES ('delete', old.seq, old.search_text); END`.execute(raw);
    await sql`INSERT INTO submissions_search (submissions_search, rank) VALUES ('crisismerge', 16)`.execute(raw);
    // and 0010's change counts, which run again after it
    const counting = await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'trigger' AND sql LIKE '%change_counts%'`.execute(raw);
    for (const { name } of counting.rows) await sql.raw(`DROP TRIGGER ${name}`).execute(raw);
    await sql`DROP TABLE change_counts`.execute(raw);
    // and 0012's allowed origins and 0013's dashboard tables
    await undoFormRetention(raw);
    await undoAttemptAnswers(raw);
    await undoRecipientConfirmations(raw);
    await undoFormPages(raw, { searchScope: false });
    await undoDashboard(raw);
    await sql`ALTER TABLE forms DROP COLUMN allowed_origins`.execute(raw);
    await undoDeliveryLanes(raw);
    await sql`DELETE FROM kysely_migration WHERE name >= '0009'`.execute(raw);
    await insertForm(raw);
    const insert = (id: string, text: string) =>
      sql`INSERT INTO submissions (id, form_id, workspace_id, data, status, search_text, created_at) VALUES (${id}, 'f1', 'w1', '{}', 'accepted', ${text}, 1)`.execute(
        raw,
      );
    await insert('s1', 'note\nbefore the upgrade');
    await insert('s2', 'note\nalso before');

    assert.deepEqual(await migrateToLatest(fresh.database), [
      '0009-search-backlog',
      '0010-change-counts',
      '0011-delivery-lanes',
      '0012-allowed-origins',
      '0013-dashboard',
      '0014-form-pages',
      '0015-failed-deliveries',
      '0016-webhook-destinations',
      '0017-search-scope',
      '0018-recipient-confirmations',
      '0019-attempt-answers',
      '0020-form-retention',
      '0021-file-uploads',
      '0022-daily-dashboard',
      '0023-change-feed',
      '0024-one-search-index',
      '0025-storage-limits',
      '0026-accent-folded-search',
      '0027-webhook-endpoints',
      '0028-altcha',
      '0029-spam-learning',
      '0030-spam-digest',
      '0031-spam-judges',
      '0032-triage',
      '0033-assigned-digest',
      '0034-labels',
      '0036-form-assigned-open',
      '0037-saved-views',
      '0038-automations',
      '0039-webhook-body',
      '0040-destinations',
      '0041-two-factor',
      '0042-audit-log',
      '0043-single-sign-on',
      '0044-passkey-challenges',
      '0045-unread-counts',
    ]);
    assert.deepEqual(await describeSchema(fresh.database), JSON.parse(fs.readFileSync(SNAPSHOT, 'utf8')), 'upgraded, the schema is the fresh one');
    const backlog = async () => (await sql<{ seq: number }>`SELECT seq FROM search_backlog`.execute(raw)).rows.length;
    // contentless since 0017: asked by MATCH, the term as a phrase of trigrams
    const indexed = async (term: string) =>
      (await sql<{ rowid: number }>`SELECT rowid FROM submissions_search WHERE submissions_search MATCH ${`search_text : "${term}"`}`.execute(raw)).rows.length;
    const crisis = await sql<{ v: number }>`SELECT v FROM submissions_search_config WHERE k = 'crisismerge'`.execute(raw);
    assert.deepEqual(crisis.rows, [{ v: 64 }], 'merges 64 segments of a level at once, not 16');
    assert.equal(await backlog(), 0, 'the rows already indexed are not queued again');
    assert.equal(await indexed('before'), 2);
    await insert('s3', 'note\nafter the upgrade');
    assert.equal(await backlog(), 1, 'a new row waits for the indexer');
    assert.equal(await indexed('after'), 0);
    await sql`DELETE FROM submissions WHERE id IN ('s1', 's3')`.execute(raw);
    assert.equal(await indexed('before'), 1, 'an indexed row leaves the index');
    assert.equal(await backlog(), 0, 'an unindexed row leaves the backlog');
    await sql`INSERT INTO submissions_search (submissions_search) VALUES ('integrity-check')`.execute(raw);
  });
});

describe('0011-delivery-lanes: upgrading a database that holds jobs', () => {
  const fresh = freshDatabase();

  it('puts each job in its lane, and each job not done at its destination', async () => {
    await migrateToLatest(fresh.database);
    const raw = fresh.database.db.withoutPlugins();
    await undoUnreadCounts(raw);
    await undoPasskeyChallenges(raw);
    await undoSingleSignOn(raw);
    await undoAuditLog(raw);
    await undoTwoFactor(raw);
    await undoDestinations(raw);
    await undoWebhookBody(raw);
    await undoAutomations(raw);
    await undoSavedViews(raw);
    await undoFormAssignedOpen(raw);
    await undoLabels(raw);
    await undoAssignedDigest(raw);
    await undoTriage(raw);
    await undoSpamJudges(raw);
    await undoSpamDigest(raw);
    await undoSpamLearning(raw);
    await undoAltcha(raw);
    await undoWebhookEndpoints(raw);
    await undoStorageLimits(raw);
    await undoOneSearchIndex(raw);
    await undoChangeFeed(raw);
    await undoDailyDashboard(raw);
    await undoFileUploads(raw);
    await undoFormRetention(raw);
    await undoAttemptAnswers(raw);
    await undoRecipientConfirmations(raw);
    await undoFormPages(raw);
    await undoDashboard(raw);
    await undoAllowedOrigins(raw);
    await undoDeliveryLanes(raw);
    await sql`DELETE FROM kysely_migration WHERE name >= '0011'`.execute(raw);
    const insert = (id: string, kind: string, status: string, payload: unknown) =>
      sql`INSERT INTO jobs (id, kind, payload, status, run_at, idempotency_key, created_at, updated_at) VALUES (${id}, ${kind}, ${JSON.stringify(payload)}, ${status}, 1, ${id}, 1, 1)`.execute(
        raw,
      );
    await insert('hook', 'webhook', 'pending', { url: 'https://Hooks.Example.com:443/in?x=1', fields: {} });
    await insert('bad-hook', 'webhook', 'failed', { url: 'not a url', fields: {} });
    await insert('sent-hook', 'webhook', 'done', { url: 'https://hooks.example.com/in', fields: {} });
    await insert('mail', 'notification', 'pending', { formId: 'f1' });
    await insert('notice', 'email', 'failed', { to: ['a@example.com'] });
    await insert('chat', 'slack', 'pending', { formId: 'f1' });

    assert.deepEqual(await migrateToLatest(fresh.database), [
      '0011-delivery-lanes',
      '0012-allowed-origins',
      '0013-dashboard',
      '0014-form-pages',
      '0015-failed-deliveries',
      '0016-webhook-destinations',
      '0017-search-scope',
      '0018-recipient-confirmations',
      '0019-attempt-answers',
      '0020-form-retention',
      '0021-file-uploads',
      '0022-daily-dashboard',
      '0023-change-feed',
      '0024-one-search-index',
      '0025-storage-limits',
      '0026-accent-folded-search',
      '0027-webhook-endpoints',
      '0028-altcha',
      '0029-spam-learning',
      '0030-spam-digest',
      '0031-spam-judges',
      '0032-triage',
      '0033-assigned-digest',
      '0034-labels',
      '0036-form-assigned-open',
      '0037-saved-views',
      '0038-automations',
      '0039-webhook-body',
      '0040-destinations',
      '0041-two-factor',
      '0042-audit-log',
      '0043-single-sign-on',
      '0044-passkey-challenges',
      '0045-unread-counts',
    ]);
    assert.deepEqual(await describeSchema(fresh.database), JSON.parse(fs.readFileSync(SNAPSHOT, 'utf8')), 'upgraded, the schema is the fresh one');
    const jobs = await fresh.database.db.selectFrom('jobs').select(['id', 'lane', 'destination', 'tryStartedAt']).orderBy('id').execute();
    assert.deepEqual(jobs, [
      { id: 'bad-hook', lane: 'webhook', destination: 'webhook', tryStartedAt: null },
      { id: 'chat', lane: 'slack', destination: 'slack', tryStartedAt: null },
      { id: 'hook', lane: 'webhook', destination: 'https://hooks.example.com', tryStartedAt: null },
      { id: 'mail', lane: 'email', destination: 'smtp', tryStartedAt: null },
      { id: 'notice', lane: 'email', destination: 'smtp', tryStartedAt: null },
      { id: 'sent-hook', lane: 'webhook', destination: null, tryStartedAt: null },
    ]);
  });
});

describe('0013-dashboard: upgrading a database that has accounts', () => {
  const fresh = freshDatabase();

  it('makes the oldest account the instance admin, and no other', async () => {
    await migrateToLatest(fresh.database);
    const raw = fresh.database.db.withoutPlugins();
    await undoUnreadCounts(raw);
    await undoPasskeyChallenges(raw);
    await undoSingleSignOn(raw);
    await undoAuditLog(raw);
    await undoTwoFactor(raw);
    await undoDestinations(raw);
    await undoWebhookBody(raw);
    await undoAutomations(raw);
    await undoSavedViews(raw);
    await undoFormAssignedOpen(raw);
    await undoLabels(raw);
    await undoAssignedDigest(raw);
    await undoTriage(raw);
    await undoSpamJudges(raw);
    await undoSpamDigest(raw);
    await undoSpamLearning(raw);
    await undoAltcha(raw);
    await undoWebhookEndpoints(raw);
    await undoStorageLimits(raw);
    await undoOneSearchIndex(raw);
    await undoChangeFeed(raw);
    await undoDailyDashboard(raw);
    await undoFileUploads(raw);
    await undoFormRetention(raw);
    await undoAttemptAnswers(raw);
    await undoRecipientConfirmations(raw);
    await undoFormPages(raw);
    await undoDashboard(raw);
    await sql`DELETE FROM kysely_migration WHERE name >= '0013'`.execute(raw);
    await sql`INSERT INTO users (id, email, created_at) VALUES ('later', 'later@example.com', 20), ('first', 'first@example.com', 10)`.execute(raw);

    assert.deepEqual(await migrateToLatest(fresh.database), [
      '0013-dashboard',
      '0014-form-pages',
      '0015-failed-deliveries',
      '0016-webhook-destinations',
      '0017-search-scope',
      '0018-recipient-confirmations',
      '0019-attempt-answers',
      '0020-form-retention',
      '0021-file-uploads',
      '0022-daily-dashboard',
      '0023-change-feed',
      '0024-one-search-index',
      '0025-storage-limits',
      '0026-accent-folded-search',
      '0027-webhook-endpoints',
      '0028-altcha',
      '0029-spam-learning',
      '0030-spam-digest',
      '0031-spam-judges',
      '0032-triage',
      '0033-assigned-digest',
      '0034-labels',
      '0036-form-assigned-open',
      '0037-saved-views',
      '0038-automations',
      '0039-webhook-body',
      '0040-destinations',
      '0041-two-factor',
      '0042-audit-log',
      '0043-single-sign-on',
      '0044-passkey-challenges',
      '0045-unread-counts',
    ]);
    assert.deepEqual(await describeSchema(fresh.database), JSON.parse(fs.readFileSync(SNAPSHOT, 'utf8')), 'upgraded, the schema is the fresh one');
    const users = await fresh.database.db.selectFrom('users').select(['id', 'isAdmin']).orderBy('id').execute();
    assert.deepEqual(users, [
      { id: 'first', isAdmin: 1 },
      { id: 'later', isAdmin: 0 },
    ]);
    const claim = await fresh.database.db.selectFrom('settings').select('value').where('key', '=', 'instance-admin').execute();
    assert.deepEqual(claim, [{ value: 'first' }], 'the claim a new first account would make is taken');
  });
});

describe('0014-form-pages: upgrading a database that holds submissions', () => {
  const fresh = freshDatabase();

  it('counts the submissions already stored into their days: spam apart, held with the accepted', async () => {
    await migrateToLatest(fresh.database);
    const raw = fresh.database.db.withoutPlugins();
    await undoUnreadCounts(raw);
    await undoPasskeyChallenges(raw);
    await undoSingleSignOn(raw);
    await undoAuditLog(raw);
    await undoTwoFactor(raw);
    await undoDestinations(raw);
    await undoWebhookBody(raw);
    await undoAutomations(raw);
    await undoSavedViews(raw);
    await undoFormAssignedOpen(raw);
    await undoLabels(raw);
    await undoAssignedDigest(raw);
    await undoTriage(raw);
    await undoSpamJudges(raw);
    await undoSpamDigest(raw);
    await undoSpamLearning(raw);
    await undoAltcha(raw);
    await undoWebhookEndpoints(raw);
    await undoStorageLimits(raw);
    await undoOneSearchIndex(raw);
    await undoChangeFeed(raw);
    await undoDailyDashboard(raw);
    await undoFileUploads(raw);
    await undoFormRetention(raw);
    await undoAttemptAnswers(raw);
    await undoRecipientConfirmations(raw);
    await undoFormPages(raw);
    await sql`DELETE FROM kysely_migration WHERE name >= '0014'`.execute(raw);
    await insertForm(raw);
    const day = 20_000;
    const insert = (id: string, status: string, at: number) =>
      sql`INSERT INTO submissions (id, form_id, workspace_id, data, status, search_text, created_at) VALUES (${id}, 'f1', 'w1', '{}', ${status}, '', ${at})`.execute(
        raw,
      );
    await insert('a', 'accepted', day * 86_400_000);
    await insert('b', 'held', day * 86_400_000 + 86_399_999);
    await insert('c', 'spam', day * 86_400_000 + 5);
    await insert('d', 'accepted', (day + 1) * 86_400_000);

    assert.deepEqual(await migrateToLatest(fresh.database), [
      '0014-form-pages',
      '0015-failed-deliveries',
      '0016-webhook-destinations',
      '0017-search-scope',
      '0018-recipient-confirmations',
      '0019-attempt-answers',
      '0020-form-retention',
      '0021-file-uploads',
      '0022-daily-dashboard',
      '0023-change-feed',
      '0024-one-search-index',
      '0025-storage-limits',
      '0026-accent-folded-search',
      '0027-webhook-endpoints',
      '0028-altcha',
      '0029-spam-learning',
      '0030-spam-digest',
      '0031-spam-judges',
      '0032-triage',
      '0033-assigned-digest',
      '0034-labels',
      '0036-form-assigned-open',
      '0037-saved-views',
      '0038-automations',
      '0039-webhook-body',
      '0040-destinations',
      '0041-two-factor',
      '0042-audit-log',
      '0043-single-sign-on',
      '0044-passkey-challenges',
      '0045-unread-counts',
    ]);
    assert.deepEqual(await describeSchema(fresh.database), JSON.parse(fs.readFileSync(SNAPSHOT, 'utf8')), 'upgraded, the schema is the fresh one');
    const counts = await fresh.database.db
      .selectFrom('dailyCounts')
      .select(['formId', 'workspaceId', 'day', 'accepted', 'spam', 'lastAt'])
      .orderBy('day')
      .execute();
    assert.deepEqual(
      counts.map((c) => ({ ...c, day: Number(c.day), accepted: Number(c.accepted), spam: Number(c.spam), lastAt: Number(c.lastAt) })),
      [
        { formId: 'f1', workspaceId: 'w1', day, accepted: 2, spam: 1, lastAt: day * 86_400_000 + 86_399_999 },
        { formId: 'f1', workspaceId: 'w1', day: day + 1, accepted: 1, spam: 0, lastAt: (day + 1) * 86_400_000 },
      ],
    );
  });
});

describe('0017-search-scope: upgrading a database whose search index holds rows', () => {
  const fresh = freshDatabase();

  it('keeps every row searchable, now within its own workspace and form; the backlog waits as it was', async () => {
    await migrateToLatest(fresh.database);
    const raw = fresh.database.db.withoutPlugins();
    await undoUnreadCounts(raw);
    await undoPasskeyChallenges(raw);
    await undoSingleSignOn(raw);
    await undoAuditLog(raw);
    await undoTwoFactor(raw);
    await undoDestinations(raw);
    await undoWebhookBody(raw);
    await undoAutomations(raw);
    await undoSavedViews(raw);
    await undoFormAssignedOpen(raw);
    await undoLabels(raw);
    await undoAssignedDigest(raw);
    await undoTriage(raw);
    await undoSpamJudges(raw);
    await undoSpamDigest(raw);
    await undoSpamLearning(raw);
    await undoAltcha(raw);
    await undoWebhookEndpoints(raw);
    await undoStorageLimits(raw);
    await undoOneSearchIndex(raw);
    await undoChangeFeed(raw);
    await undoDailyDashboard(raw);
    await undoFileUploads(raw);
    await undoFormRetention(raw);
    await undoAttemptAnswers(raw);
    await undoRecipientConfirmations(raw);
    await undoSearchScope(raw);
    await sql`DELETE FROM kysely_migration WHERE name >= '0017'`.execute(raw);
    await insertForm(raw);
    await sql`INSERT INTO workspaces (id, name, plan, owner_id, submissions_used, created_at, updated_at) VALUES ('w2', 'W2', 'FREE', 'u1', 0, 1, 1)`.execute(
      raw,
    );
    await sql`INSERT INTO forms (id, workspace_id, name, notification_emails, created_at, updated_at) VALUES ('f2', 'w2', 'F2', '[]', 1, 1)`.execute(raw);
    const insert = (id: string, form: string, workspace: string, text: string) =>
      sql`INSERT INTO submissions (id, form_id, workspace_id, data, status, search_text, created_at) VALUES (${id}, ${form}, ${workspace}, '{}', 'accepted', ${text}, 1)`.execute(
        raw,
      );
    await insert('s1', 'f1', 'w1', 'note\nheliotrope one');
    await insert('s2', 'f2', 'w2', 'note\nheliotrope two');
    if (TEST_DIALECT === 'sqlite') {
      // the old indexer's move of the backlog into the old index, then one row left waiting
      await sql`INSERT INTO submissions_search (rowid, search_text) SELECT seq, search_text FROM submissions ORDER BY seq`.execute(raw);
      await sql`DELETE FROM search_backlog`.execute(raw);
    }
    await insert('s3', 'f1', 'w1', 'note\nheliotrope three');

    assert.deepEqual(await migrateToLatest(fresh.database), [
      '0017-search-scope',
      '0018-recipient-confirmations',
      '0019-attempt-answers',
      '0020-form-retention',
      '0021-file-uploads',
      '0022-daily-dashboard',
      '0023-change-feed',
      '0024-one-search-index',
      '0025-storage-limits',
      '0026-accent-folded-search',
      '0027-webhook-endpoints',
      '0028-altcha',
      '0029-spam-learning',
      '0030-spam-digest',
      '0031-spam-judges',
      '0032-triage',
      '0033-assigned-digest',
      '0034-labels',
      '0036-form-assigned-open',
      '0037-saved-views',
      '0038-automations',
      '0039-webhook-body',
      '0040-destinations',
      '0041-two-factor',
      '0042-audit-log',
      '0043-single-sign-on',
      '0044-passkey-challenges',
      '0045-unread-counts',
    ]);
    assert.deepEqual(await describeSchema(fresh.database), JSON.parse(fs.readFileSync(SNAPSHOT, 'utf8')), 'upgraded, the schema is the fresh one');
    if (TEST_DIALECT !== 'sqlite') return;
    const seqOf = async (id: string) => (await sql<{ seq: number }>`SELECT seq FROM submissions WHERE id = ${id}`.execute(raw)).rows[0]!.seq;
    const found = async (column: 'workspace_scope' | 'form_scope', id: string) =>
      (
        await sql<{
          rowid: number;
        }>`SELECT rowid FROM submissions_search WHERE submissions_search MATCH ${`${column} : "${scopeToken(id)}" AND search_text : "heliotrope"`} ORDER BY rowid`.execute(
          raw,
        )
      ).rows.map((r) => r.rowid);
    assert.deepEqual(await found('workspace_scope', 'w1'), [await seqOf('s1')], 'the indexed row of w1, under its workspace');
    assert.deepEqual(await found('form_scope', 'f2'), [await seqOf('s2')], 'and of f2, under its form');
    assert.deepEqual(
      (await sql<{ seq: number }>`SELECT seq FROM search_backlog`.execute(raw)).rows,
      [{ seq: await seqOf('s3') }],
      'the waiting row still waits',
    );
    await new SearchIndexer(fresh.database).indexAll();
    assert.deepEqual(await found('workspace_scope', 'w1'), [await seqOf('s1'), await seqOf('s3')], 'indexed, under its scope');
    await sql`DELETE FROM submissions WHERE id = 's1'`.execute(raw);
    assert.deepEqual(await found('form_scope', 'f1'), [await seqOf('s3')], 'a deleted row leaves the index by its rowid');
    await sql`INSERT INTO submissions_search (submissions_search) VALUES ('integrity-check')`.execute(raw);
  });
});

describe('0018-recipient-confirmations: upgrading a database whose forms list addresses', () => {
  const fresh = freshDatabase();

  it('records every address already on a form as confirmed, once per workspace, so notifications go on after the upgrade', async () => {
    await migrateToLatest(fresh.database);
    const raw = fresh.database.db.withoutPlugins();
    await undoUnreadCounts(raw);
    await undoPasskeyChallenges(raw);
    await undoSingleSignOn(raw);
    await undoAuditLog(raw);
    await undoTwoFactor(raw);
    await undoDestinations(raw);
    await undoWebhookBody(raw);
    await undoAutomations(raw);
    await undoSavedViews(raw);
    await undoFormAssignedOpen(raw);
    await undoLabels(raw);
    await undoAssignedDigest(raw);
    await undoTriage(raw);
    await undoSpamJudges(raw);
    await undoSpamDigest(raw);
    await undoSpamLearning(raw);
    await undoAltcha(raw);
    await undoWebhookEndpoints(raw);
    await undoStorageLimits(raw);
    await undoOneSearchIndex(raw);
    await undoChangeFeed(raw);
    await undoDailyDashboard(raw);
    await undoFileUploads(raw);
    await undoFormRetention(raw);
    await undoAttemptAnswers(raw);
    await undoRecipientConfirmations(raw);
    await sql`DELETE FROM kysely_migration WHERE name >= '0018'`.execute(raw);
    await insertForm(raw);
    await sql`UPDATE forms SET notification_emails = ${JSON.stringify(['Ann@Example.com', 'bob@example.com'])} WHERE id = 'f1'`.execute(raw);
    await sql`INSERT INTO forms (id, workspace_id, name, notification_emails, created_at, updated_at) VALUES ('f2', 'w1', 'G', ${JSON.stringify([' ann@example.com '])}, 2, 2)`.execute(
      raw,
    );

    assert.deepEqual(await migrateToLatest(fresh.database), [
      '0018-recipient-confirmations',
      '0019-attempt-answers',
      '0020-form-retention',
      '0021-file-uploads',
      '0022-daily-dashboard',
      '0023-change-feed',
      '0024-one-search-index',
      '0025-storage-limits',
      '0026-accent-folded-search',
      '0027-webhook-endpoints',
      '0028-altcha',
      '0029-spam-learning',
      '0030-spam-digest',
      '0031-spam-judges',
      '0032-triage',
      '0033-assigned-digest',
      '0034-labels',
      '0036-form-assigned-open',
      '0037-saved-views',
      '0038-automations',
      '0039-webhook-body',
      '0040-destinations',
      '0041-two-factor',
      '0042-audit-log',
      '0043-single-sign-on',
      '0044-passkey-challenges',
      '0045-unread-counts',
    ]);
    assert.deepEqual(await describeSchema(fresh.database), JSON.parse(fs.readFileSync(SNAPSHOT, 'utf8')), 'upgraded, the schema is the fresh one');
    const rows = await fresh.database.db.selectFrom('recipientConfirmations').select(['workspaceId', 'email', 'state', 'tokenHash']).orderBy('email').execute();
    assert.deepEqual(rows, [
      { workspaceId: 'w1', email: 'ann@example.com', state: 'confirmed', tokenHash: null },
      { workspaceId: 'w1', email: 'bob@example.com', state: 'confirmed', tokenHash: null },
    ]);
  });
});

describe('0025-storage-limits: upgrading a database that holds spam', () => {
  const fresh = freshDatabase();

  it('counts the spam already stored into its workspace’s days, with its bytes; nothing reserved', async () => {
    await migrateToLatest(fresh.database);
    const raw = fresh.database.db.withoutPlugins();
    await undoUnreadCounts(raw);
    await undoPasskeyChallenges(raw);
    await undoSingleSignOn(raw);
    await undoAuditLog(raw);
    await undoTwoFactor(raw);
    await undoDestinations(raw);
    await undoWebhookBody(raw);
    await undoAutomations(raw);
    await undoSavedViews(raw);
    await undoFormAssignedOpen(raw);
    await undoLabels(raw);
    await undoAssignedDigest(raw);
    await undoTriage(raw);
    await undoSpamJudges(raw);
    await undoSpamDigest(raw);
    await undoSpamLearning(raw);
    await undoAltcha(raw);
    await undoWebhookEndpoints(raw);
    await undoStorageLimits(raw);
    await sql`DELETE FROM kysely_migration WHERE name >= '0025'`.execute(raw);
    await insertForm(raw);
    const day = 20_000;
    const insert = (id: string, status: string, data: string, at: number) =>
      sql`INSERT INTO submissions (id, form_id, workspace_id, data, status, search_text, created_at) VALUES (${id}, 'f1', 'w1', ${data}, ${status}, '', ${at})`.execute(
        raw,
      );
    await insert('s1', 'spam', '{"a":"ü"}', day * 86_400_000 + 5);
    await insert('s2', 'spam', '{"b":"xyz"}', day * 86_400_000 + 9);
    await insert('s3', 'accepted', '{"c":"not spam"}', day * 86_400_000 + 10);
    await insert('s4', 'spam', '{}', (day + 1) * 86_400_000);

    assert.deepEqual(await migrateToLatest(fresh.database), [
      '0025-storage-limits',
      '0026-accent-folded-search',
      '0027-webhook-endpoints',
      '0028-altcha',
      '0029-spam-learning',
      '0030-spam-digest',
      '0031-spam-judges',
      '0032-triage',
      '0033-assigned-digest',
      '0034-labels',
      '0036-form-assigned-open',
      '0037-saved-views',
      '0038-automations',
      '0039-webhook-body',
      '0040-destinations',
      '0041-two-factor',
      '0042-audit-log',
      '0043-single-sign-on',
      '0044-passkey-challenges',
      '0045-unread-counts',
    ]);
    assert.deepEqual(await describeSchema(fresh.database), JSON.parse(fs.readFileSync(SNAPSHOT, 'utf8')), 'upgraded, the schema is the fresh one');
    const days = await fresh.database.db.selectFrom('spamDays').selectAll().orderBy('day').execute();
    assert.deepEqual(
      days.map((row) => ({ ...row, bytes: Number(row.bytes) })),
      [
        { workspaceId: 'w1', day, caught: 2, bytes: Buffer.byteLength('{"a":"ü"}') + Buffer.byteLength('{"b":"xyz"}'), dropped: 0 },
        { workspaceId: 'w1', day: day + 1, caught: 1, bytes: 2, dropped: 0 },
      ],
    );
    const workspace = await fresh.database.db.selectFrom('workspaces').select('fileBytesReserved').executeTakeFirstOrThrow();
    assert.equal(Number(workspace.fileBytesReserved), 0);
  });
});

describe(`0026-accent-folded-search: upgrading a database whose search text keeps its accents (${TEST_DIALECT})`, () => {
  const fresh = freshDatabase();

  it('folds every stored row’s search text, and SQLite’s index finds the rows by their plain letters', async () => {
    await migrateToLatest(fresh.database);
    const raw = fresh.database.db.withoutPlugins();
    await undoUnreadCounts(raw);
    await undoPasskeyChallenges(raw);
    await undoSingleSignOn(raw);
    await undoAuditLog(raw);
    await undoTwoFactor(raw);
    await undoDestinations(raw);
    await undoWebhookBody(raw);
    await undoAutomations(raw);
    await undoSavedViews(raw);
    await undoFormAssignedOpen(raw);
    await undoLabels(raw);
    await undoAssignedDigest(raw);
    await undoTriage(raw);
    await undoSpamJudges(raw);
    await undoSpamDigest(raw);
    await undoSpamLearning(raw);
    await undoAltcha(raw);
    await undoWebhookEndpoints(raw);
    await sql`DELETE FROM kysely_migration WHERE name >= '0026'`.execute(raw);
    await insertForm(raw);
    // as the previous release stored them: lower-cased, accents kept
    const insert = (id: string, text: string) =>
      sql`INSERT INTO submissions (id, form_id, workspace_id, data, status, search_text, created_at) VALUES (${id}, 'f1', 'w1', '{}', 'accepted', ${text}, 1)`.execute(
        raw,
      );
    await insert('s1', 'dessert\ngâteau à la crème');
    await insert('s2', 'plain\nascii only');
    await insert('s3', 'city\nłódź, мой дом, 東京');
    if (TEST_DIALECT === 'sqlite') {
      // s1 and s2 indexed as the previous release indexed them; s3 is still in the backlog
      await sql`DELETE FROM search_backlog WHERE seq IN (SELECT seq FROM submissions WHERE id IN ('s1', 's2'))`.execute(raw);
      await sql`INSERT INTO submissions_search (rowid, search_text, workspace_scope, form_scope)
        SELECT seq, search_text, ${scopeToken('w1')}, ${scopeToken('f1')} FROM submissions WHERE id IN ('s1', 's2') ORDER BY seq`.execute(raw);
    }

    assert.deepEqual(await migrateToLatest(fresh.database), [
      '0026-accent-folded-search',
      '0027-webhook-endpoints',
      '0028-altcha',
      '0029-spam-learning',
      '0030-spam-digest',
      '0031-spam-judges',
      '0032-triage',
      '0033-assigned-digest',
      '0034-labels',
      '0036-form-assigned-open',
      '0037-saved-views',
      '0038-automations',
      '0039-webhook-body',
      '0040-destinations',
      '0041-two-factor',
      '0042-audit-log',
      '0043-single-sign-on',
      '0044-passkey-challenges',
      '0045-unread-counts',
    ]);
    assert.deepEqual(await describeSchema(fresh.database), JSON.parse(fs.readFileSync(SNAPSHOT, 'utf8')), 'upgraded, the schema is the fresh one');
    const texts = (await sql<{ id: string; search_text: string }>`SELECT id, search_text FROM submissions ORDER BY id`.execute(raw)).rows;
    assert.deepEqual(texts, [
      { id: 's1', search_text: 'dessert\ngateau a la creme' },
      { id: 's2', search_text: 'plain\nascii only' },
      { id: 's3', search_text: 'city\nlodz, мой дом, 東京' },
    ]);
    if (TEST_DIALECT !== 'sqlite') return;
    const matches = async (term: string) =>
      (
        await sql<{ id: string }>`SELECT submissions.id FROM submissions_search JOIN submissions ON submissions.seq = submissions_search.rowid
          WHERE submissions_search MATCH ${`search_text : "${term}"`} ORDER BY submissions.id`.execute(raw)
      ).rows.map((row) => row.id);
    assert.deepEqual(await matches('gateau'), ['s1'], 'the indexed row is indexed again with its folded text');
    assert.deepEqual(await matches('gâteau'), [], 'its old text left the index');
    assert.deepEqual(await matches('ascii'), ['s2']);
    await new SearchIndexer(fresh.database).indexAll();
    assert.deepEqual(await matches('lodz'), ['s3'], 'the backlog is indexed from the folded text');
  });
});

describe(`0045-unread-counts: upgrading a database that holds submissions (${TEST_DIALECT})`, () => {
  const fresh = freshDatabase();

  it("counts each form's unread inbox submissions, then triggers keep the count through every change", async () => {
    await migrateToLatest(fresh.database);
    const raw = fresh.database.db.withoutPlugins();
    await undoUnreadCounts(raw);
    await sql`DELETE FROM kysely_migration WHERE name >= '0045'`.execute(raw);
    await insertForm(raw);
    await sql`INSERT INTO forms (id, workspace_id, name, notification_emails, created_at, updated_at) VALUES ('f2', 'w1', 'G', '[]', 1, 1)`.execute(raw);
    const insert = (id: string, form: string, status: string, unread: number) =>
      sql`INSERT INTO submissions (id, form_id, workspace_id, data, status, unread, created_at) VALUES (${id}, ${form}, 'w1', '{}', ${status}, ${unread}, 1)`.execute(
        raw,
      );
    // unread in the inbox: s1, s2 (f1) and s5 (f2); read, spam and held ones are not counted
    await insert('s1', 'f1', 'accepted', 1);
    await insert('s2', 'f1', 'accepted', 1);
    await insert('s3', 'f1', 'accepted', 0);
    await insert('s4', 'f1', 'spam', 1);
    await insert('s5', 'f2', 'accepted', 1);
    await insert('s6', 'f2', 'held', 1);

    assert.deepEqual(await migrateToLatest(fresh.database), ['0045-unread-counts']);
    assert.deepEqual(await describeSchema(fresh.database), JSON.parse(fs.readFileSync(SNAPSHOT, 'utf8')), 'upgraded, the schema is the fresh one');
    const counts = async () =>
      Object.fromEntries(
        (await sql<{ form_id: string; n: number | string }>`SELECT form_id, n FROM unread_counts ORDER BY form_id`.execute(raw)).rows.map((row) => [
          row.form_id,
          Number(row.n),
        ]),
      );
    assert.deepEqual(await counts(), { f1: 2, f2: 1 }, 'the rows already stored are counted');

    await insert('s7', 'f1', 'accepted', 1);
    await sql`INSERT INTO submissions (id, form_id, workspace_id, data, status, unread, created_at) VALUES ('s8', 'f2', 'w1', '{}', 'accepted', 1, 2), ('s9', 'f2', 'w1', '{}', 'accepted', 1, 2)`.execute(
      raw,
    );
    assert.deepEqual(await counts(), { f1: 3, f2: 3 }, 'a new unread submission counts, one at a time or several in one statement');
    await sql`UPDATE submissions SET unread = 0 WHERE id IN ('s1', 's2', 's3')`.execute(raw);
    assert.deepEqual(await counts(), { f1: 1, f2: 3 }, 'read: uncounted (an already read one changes nothing)');
    await sql`UPDATE submissions SET unread = 1 WHERE id = 's3'`.execute(raw);
    await sql`UPDATE submissions SET status = 'spam' WHERE id = 's7'`.execute(raw);
    await sql`UPDATE submissions SET status = 'accepted' WHERE id IN ('s4', 's6')`.execute(raw);
    assert.deepEqual(await counts(), { f1: 2, f2: 4 }, 'unread again, marked as spam, released from spam or from held');
    await sql`UPDATE submissions SET note = 'seen', done_at = 5 WHERE id = 's3'`.execute(raw);
    assert.deepEqual(await counts(), { f1: 2, f2: 4 }, 'a change of anything else changes no count');
    await sql`DELETE FROM submissions WHERE id IN ('s3', 's8', 's1')`.execute(raw);
    assert.deepEqual(await counts(), { f1: 1, f2: 3 }, 'deleted: uncounted (a read one changes nothing)');
    await sql`DELETE FROM forms WHERE id = 'f2'`.execute(raw);
    assert.deepEqual(await counts(), { f1: 1 }, 'a deleted form takes its count with it, its submissions deleted by cascade');
    await sql`DELETE FROM workspaces WHERE id = 'w1'`.execute(raw);
    assert.deepEqual(await counts(), {});
  });
});
