import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import type { Migration } from './index.js';

// What intake reads of a form (FormService's intake query) and what authentication reads of a token.
const FORM_COLUMNS = 'workspace_id, custom_honeypot, custom_spam_words, spam_protection, notification_emails, slack_channel, webhook_url';
const TOKEN_COLUMNS = 'user_id, name, token_hash, scopes, expires_at, revoked_at, created_at';

/** The triggers of each count: a change to any of what the kept rows were read from moves it. */
const COUNTED: Record<string, string[]> = {
  // a form's settings, its workspace's plan, its captcha secret, its autoresponder template
  intake_forms: [
    `forms_intake_update AFTER UPDATE OF ${FORM_COLUMNS} ON forms`,
    'forms_intake_delete AFTER DELETE ON forms',
    'workspaces_intake_update AFTER UPDATE OF plan ON workspaces',
    'form_secrets_intake_insert AFTER INSERT ON form_secrets',
    'form_secrets_intake_update AFTER UPDATE ON form_secrets',
    'form_secrets_intake_delete AFTER DELETE ON form_secrets',
    'templates_intake_insert AFTER INSERT ON templates',
    'templates_intake_update AFTER UPDATE ON templates',
    'templates_intake_delete AFTER DELETE ON templates',
  ],
  // a token revoked, expired early, rescoped or deleted (with its account, by cascade)
  tokens: [`tokens_auth_update AFTER UPDATE OF ${TOKEN_COLUMNS} ON tokens`, 'tokens_auth_delete AFTER DELETE ON tokens'],
};

/**
 * On SQLite, counts of the changes to the rows read on every request, kept by triggers: intake's
 * forms and the API's tokens. The rows are kept in memory while their count stays put
 * (db/kept-rows.ts); a lookup was ~20 µs of each submission under load. Triggers see every write,
 * whichever code path or process makes it (the admin commands run as their own processes), so no
 * writer has to remember to tell a cache. The columns that change with every request
 * (`submissions_used`, `honeypot_drops`, `last_used_at`) are left out by naming the columns. On
 * PostgreSQL each request reads its rows, so there is nothing to count.
 */
export const changeCounts: Migration = {
  async up(db: Kysely<any>, dialect: Dialect) {
    if (dialect !== 'sqlite') return;
    await sql`CREATE TABLE change_counts (name TEXT PRIMARY KEY, n INTEGER NOT NULL)`.execute(db);
    for (const [name, triggers] of Object.entries(COUNTED)) {
      await sql`INSERT INTO change_counts (name, n) VALUES (${name}, 0)`.execute(db);
      for (const trigger of triggers)
        await sql.raw(`CREATE TRIGGER ${trigger} BEGIN UPDATE change_counts SET n = n + 1 WHERE name = '${name}'; END`).execute(db);
    }
  },
};
