import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import type { Migration } from './index.js';

// 0021's list of what intake reads of a form, with this migration's: a changed one must reach the next submission.
const FORM_COLUMNS =
  'workspace_id, custom_honeypot, custom_spam_words, spam_protection, notification_emails, slack_channel, webhook_url, allowed_origins, uploads_enabled, upload_limits, ' +
  'redirect_url, thanks_title, thanks_message, paused, closes_at, max_submissions, chat_channels';

/**
 * The owner's daily work in the dashboard (issue 29).
 * - `forms`: settings that today need hidden fields (`redirect_url`, `thanks_title`, `thanks_message`,
 *   `notification_subject`, `notification_from_name`, `autoresponse_subject`, `autoresponse_from_name`;
 *   null: as before), the form's state (`paused` 0/1, `closes_at` epoch ms, `max_submissions`), and
 *   `chat_channels` (JSON array of the Slack incoming webhook, Discord, Teams and Telegram channels;
 *   null: none).
 * - `submissions.unread` (0/1): existing rows are read (0), intake writes 1; the partial index counts a
 *   form's unread accepted submissions without reading its others. `submissions.note`: the team's note.
 * - `users.time_zone` (IANA name; null: the browser's) and `users.disabled_at` (a disabled account cannot log in).
 */
export const dailyDashboard: Migration = {
  async up(db: Kysely<any>, dialect: Dialect) {
    const json = dialect === 'postgres' ? 'jsonb' : 'text';
    for (const column of [
      'redirect_url',
      'thanks_title',
      'thanks_message',
      'notification_subject',
      'notification_from_name',
      'autoresponse_subject',
      'autoresponse_from_name',
    ]) {
      await db.schema.alterTable('forms').addColumn(column, 'text').execute();
    }
    await db.schema
      .alterTable('forms')
      .addColumn('paused', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable('forms').addColumn('closes_at', 'bigint').execute();
    await db.schema.alterTable('forms').addColumn('max_submissions', 'integer').execute();
    await db.schema.alterTable('forms').addColumn('chat_channels', json).execute();

    await db.schema
      .alterTable('submissions')
      .addColumn('unread', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable('submissions').addColumn('note', 'text').execute();
    await sql`CREATE INDEX submissions_unread ON submissions (form_id) WHERE unread = 1 AND status = 'accepted'`.execute(db);

    await db.schema.alterTable('users').addColumn('time_zone', 'text').execute();
    await db.schema.alterTable('users').addColumn('disabled_at', 'bigint').execute();

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
