import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import type { Migration } from './index.js';

// 0022's lists of what intake reads of a form and what authentication reads of a token.
const FORM_COLUMNS =
  'workspace_id, custom_honeypot, custom_spam_words, spam_protection, notification_emails, slack_channel, webhook_url, allowed_origins, uploads_enabled, upload_limits, ' +
  'redirect_url, thanks_title, thanks_message, paused, closes_at, max_submissions, chat_channels';
const TOKEN_COLUMNS = 'user_id, name, token_hash, scopes, expires_at, revoked_at, created_at';

/** The triggers of each name, as SQLite's of migrations 0010 and 0022 (a workspace or user deleted removes its forms or tokens by cascade, which fires them). */
const NOTIFIED: Record<string, string[]> = {
  intake_forms: [
    `forms_intake_update AFTER UPDATE OF ${FORM_COLUMNS} ON forms`,
    'forms_intake_delete AFTER DELETE ON forms',
    'workspaces_intake_update AFTER UPDATE OF plan ON workspaces',
    'form_secrets_intake_change AFTER INSERT OR UPDATE OR DELETE ON form_secrets',
    'templates_intake_change AFTER INSERT OR UPDATE OR DELETE ON templates',
  ],
  tokens: [`tokens_auth_update AFTER UPDATE OF ${TOKEN_COLUMNS} ON tokens`, 'tokens_auth_delete AFTER DELETE ON tokens'],
};

/**
 * On PostgreSQL, the changes to the rows kept in memory (db/kept-rows.ts) announced to every
 * instance: triggers NOTIFY `formgate_changes` with the name of what changed, and each instance
 * counts what it hears (db/change-feed.ts). Statement-level: one notification per statement, and
 * PostgreSQL sends equal ones of one transaction once. NOTE: a statement-level trigger fires even
 * when the statement changed no row; that only makes an instance read its rows again. On SQLite,
 * nothing: `change_counts` does it (migration 0010).
 */
export const changeFeed: Migration = {
  async up(db: Kysely<any>, dialect: Dialect) {
    if (dialect !== 'postgres') return;
    await sql`
      CREATE FUNCTION formgate_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('formgate_changes', TG_ARGV[0]);
        RETURN NULL;
      END
      $$`.execute(db);
    for (const [name, triggers] of Object.entries(NOTIFIED))
      for (const trigger of triggers)
        await sql.raw(`CREATE TRIGGER ${trigger} FOR EACH STATEMENT EXECUTE FUNCTION formgate_notify_change('${name}')`).execute(db);
  },
};
