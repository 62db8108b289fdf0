import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import type { Migration } from './index.js';

// 0022's list of what intake reads of a form (0023's on PostgreSQL), with this migration's: a changed one must reach the next submission.
const FORM_COLUMNS =
  'workspace_id, custom_honeypot, custom_spam_words, spam_protection, notification_emails, slack_channel, webhook_url, allowed_origins, uploads_enabled, upload_limits, ' +
  'redirect_url, thanks_title, thanks_message, paused, closes_at, max_submissions, chat_channels, spam_assassin, flag_disposable_addresses, flag_same_message';

/**
 * The outside spam judges a form turns on (issue 40, item 4), each 0 (off, the default) or 1:
 * - `spam_assassin`: each submission is scored by the instance's spamd (FORMGATE_SPAMD_URL);
 * - `flag_disposable_addresses`: a submitter's address at a disposable e-mail service adds points;
 * - `flag_same_message`: the same message from many client addresses within an hour is spam.
 * Akismet needs no column: it is on while the form stores its key (`form_secrets`, provider AKISMET).
 * Intake reads them, so the trigger that tells every instance of a changed form names them too.
 */
export const spamJudges: Migration = {
  async up(db: Kysely<any>, dialect: Dialect) {
    for (const column of ['spam_assassin', 'flag_disposable_addresses', 'flag_same_message']) {
      await db.schema
        .alterTable('forms')
        .addColumn(column, 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    }
    if (dialect === 'sqlite') {
      await sql`DROP TRIGGER forms_intake_update`.execute(db);
      await sql
        .raw(
          `CREATE TRIGGER forms_intake_update AFTER UPDATE OF ${FORM_COLUMNS} ON forms BEGIN UPDATE change_counts SET n = n + 1 WHERE name = 'intake_forms'; END`,
        )
        .execute(db);
      return;
    }
    await sql`DROP TRIGGER forms_intake_update ON forms`.execute(db);
    await sql
      .raw(
        `CREATE TRIGGER forms_intake_update AFTER UPDATE OF ${FORM_COLUMNS} ON forms FOR EACH STATEMENT EXECUTE FUNCTION formgate_notify_change('intake_forms')`,
      )
      .execute(db);
  },
};
