import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import type { Migration } from './index.js';

// 0012's list of what intake reads of a form, with the upload settings: a changed one must reach the next submission.
const FORM_COLUMNS =
  'workspace_id, custom_honeypot, custom_spam_words, spam_protection, notification_emails, slack_channel, webhook_url, allowed_origins, uploads_enabled, upload_limits';

/**
 * File uploads (issue 28).
 * - `forms.uploads_enabled` (on for every form, new or existing) and `forms.upload_limits` (JSON of
 *   the form's own limits; null: the defaults of domain/uploads.ts).
 * - `submission_files`: one row per file part of a submission, stored (`storage_key`) or dropped
 *   (`dropped_reason`). Its foreign key does not cascade: whatever deletes a submission must
 *   delete its files too (db/submission-deletion.ts), or the deletion fails loudly.
 * - `unclaimed_files`: storage objects that may exist without a row that owns them: written before
 *   their submission commits (due an hour later, in case it never does), or left by a deletion
 *   (due at once). The sweep deletes each object when due, then its row.
 * - `workspaces.file_bytes`: the bytes of the workspace's stored files, against the plan's storage allowance.
 */
export const fileUploads: Migration = {
  async up(db: Kysely<any>, dialect: Dialect) {
    const json = dialect === 'postgres' ? 'jsonb' : 'text';
    await db.schema
      .alterTable('forms')
      .addColumn('uploads_enabled', 'integer', (c) => c.notNull().defaultTo(1))
      .execute();
    await db.schema.alterTable('forms').addColumn('upload_limits', json).execute();
    await db.schema
      .alterTable('workspaces')
      .addColumn('file_bytes', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .createTable('submission_files')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('submission_id', 'text', (c) => c.notNull().references('submissions.id'))
      .addColumn('form_id', 'text', (c) => c.notNull())
      .addColumn('workspace_id', 'text', (c) => c.notNull())
      .addColumn('field', 'text', (c) => c.notNull())
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('size', 'bigint', (c) => c.notNull())
      .addColumn('storage_key', 'text')
      .addColumn('dropped_reason', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('submission_files_submission').on('submission_files').columns(['submission_id', 'position']).execute();
    await db.schema
      .createTable('unclaimed_files')
      .addColumn('storage_key', 'text', (c) => c.primaryKey())
      .addColumn('due_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('unclaimed_files_due').on('unclaimed_files').columns(['due_at']).execute();
    if (dialect !== 'sqlite') return;
    // SQLite keeps intake forms in memory while their change count stays put (migration 0010).
    await sql`DROP TRIGGER forms_intake_update`.execute(db);
    await sql
      .raw(
        `CREATE TRIGGER forms_intake_update AFTER UPDATE OF ${FORM_COLUMNS} ON forms BEGIN UPDATE change_counts SET n = n + 1 WHERE name = 'intake_forms'; END`,
      )
      .execute(db);
  },
};
