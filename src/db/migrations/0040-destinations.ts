import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import type { Migration } from './index.js';

/**
 * A form's destinations (issue 42, item 4; domain/destinations.ts): Airtable, Notion, Google
 * Sheets, and newsletter lists (Brevo, listmonk, Mailchimp), each sent every accepted submission as
 * an outbox job of its own. `settings` holds what is not secret (the base and table, the database,
 * the sheet, the list, the consent field, the field mapping) as JSON; `secret` the token or key, as
 * the captcha secrets of `form_secrets` are kept (as typed: never shown back, never in the API).
 * `last_*` say how its last delivery went, for the dashboard. Removed with its form.
 * Intake reads a form's destinations (their ids and kinds) with the form and keeps them in memory
 * (services/intake-forms.ts): adding or removing one moves the intake count, on both dialects.
 */
export const destinations: Migration = {
  async up(db: Kysely<any>, dialect: Dialect) {
    await db.schema
      .createTable('form_destinations')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('form_id', 'text', (c) => c.notNull().references('forms.id').onDelete('cascade'))
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('settings', dialect === 'postgres' ? 'jsonb' : 'text', (c) => c.notNull())
      .addColumn('secret', 'text', (c) => c.notNull())
      .addColumn('last_tried_at', 'bigint')
      .addColumn('last_status', 'text')
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await sql`CREATE INDEX form_destinations_form ON form_destinations (form_id, created_at)`.execute(db);
    if (dialect === 'sqlite') {
      for (const change of ['INSERT', 'UPDATE OF form_id, kind', 'DELETE']) {
        const name = `form_destinations_intake_${change.split(' ')[0]!.toLowerCase()}`;
        await sql
          .raw(`CREATE TRIGGER ${name} AFTER ${change} ON form_destinations BEGIN UPDATE change_counts SET n = n + 1 WHERE name = 'intake_forms'; END`)
          .execute(db);
      }
      return;
    }
    await sql
      .raw(
        `CREATE TRIGGER form_destinations_intake AFTER INSERT OR UPDATE OF form_id, kind OR DELETE ON form_destinations FOR EACH STATEMENT EXECUTE FUNCTION formgate_notify_change('intake_forms')`,
      )
      .execute(db);
  },
};
