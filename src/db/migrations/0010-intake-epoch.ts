import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import type { Migration } from './index.js';

// What intake reads of a form (FormService's intake query): a change to any of it moves the count.
const FORM_COLUMNS = 'workspace_id, custom_honeypot, custom_spam_words, spam_protection, notification_emails, slack_channel, webhook_url';

/**
 * On SQLite, a count of the changes to what intake reads of a form, kept by triggers: the form's
 * own settings, its workspace's plan, its captcha secret and its autoresponder template. Intake keeps
 * the forms it has looked up while the count stays put (intake/intake-forms.ts). Triggers see every
 * write, whichever code path or process makes it (the admin commands run as their own processes),
 * so no writer has to remember to tell the cache. The counters that change with every submission
 * (`submissions_used`, `honeypot_drops`) are left out by naming the columns. On PostgreSQL each
 * submission reads its form, so there is nothing to keep.
 */
export const intakeEpoch: Migration = {
  async up(db: Kysely<any>, dialect: Dialect) {
    if (dialect !== 'sqlite') return;
    await sql`CREATE TABLE intake_epoch (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL)`.execute(db);
    await sql`INSERT INTO intake_epoch (id, n) VALUES (1, 0)`.execute(db);
    const bump = 'BEGIN UPDATE intake_epoch SET n = n + 1 WHERE id = 1; END';
    const triggers = [
      `forms_intake_update AFTER UPDATE OF ${FORM_COLUMNS} ON forms`,
      'forms_intake_delete AFTER DELETE ON forms',
      'workspaces_intake_update AFTER UPDATE OF plan ON workspaces',
      'form_secrets_intake_insert AFTER INSERT ON form_secrets',
      'form_secrets_intake_update AFTER UPDATE ON form_secrets',
      'form_secrets_intake_delete AFTER DELETE ON form_secrets',
      'templates_intake_insert AFTER INSERT ON templates',
      'templates_intake_update AFTER UPDATE ON templates',
      'templates_intake_delete AFTER DELETE ON templates',
    ];
    for (const trigger of triggers) await sql.raw(`CREATE TRIGGER ${trigger} ${bump}`).execute(db);
  },
};
