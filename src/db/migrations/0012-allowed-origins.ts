import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import type { Migration } from './index.js';

// 0010's list of what intake reads of a form, with the new column: a changed list must reach the next submission.
const FORM_COLUMNS = 'workspace_id, custom_honeypot, custom_spam_words, spam_protection, notification_emails, slack_channel, webhook_url, allowed_origins';

/**
 * A form's allowed origins (`["https://example.com"]`; empty: no list): the sites whose pages may
 * post to it, and the only places its redirects and custom page wording may point to or come from.
 */
export const allowedOrigins: Migration = {
  async up(db: Kysely<any>, dialect: Dialect) {
    const json = dialect === 'postgres' ? 'jsonb' : 'text';
    await db.schema
      .alterTable('forms')
      .addColumn('allowed_origins', json, (c) => c.notNull().defaultTo('[]'))
      .execute();
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
