import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import type { Migration } from './index.js';

/**
 * Automations (issue 42, items 1 and 2):
 * - `automation_keys`: a workspace's automation-tool keys (the spec's 2.3, rule 2), each named, its
 *   SHA-256 kept and never the key; it acts as the member who made it, in that workspace only.
 * - `hooks`: REST-hook subscriptions of the automation platforms (Zapier, Make, n8n, Activepieces):
 *   an event of one form (or of every form of the workspace, `form_id` null) posted to `target_url`,
 *   signed with the hook's own secret. Each was made with an API token or a key, and goes with it.
 *   `last_*` say how its last delivery went, for the dashboard's list.
 * Intake reads a form's hooks with the form and keeps them in memory (services/intake-forms.ts):
 * every change to `hooks` moves the intake count, on both dialects.
 */
export const automations: Migration = {
  async up(db: Kysely<any>, dialect: Dialect) {
    await db.schema
      .createTable('automation_keys')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('created_by', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('key_hash', 'text', (c) => c.notNull().unique())
      .addColumn('last_used_at', 'bigint')
      .addColumn('revoked_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await sql`CREATE INDEX automation_keys_workspace ON automation_keys (workspace_id, created_at)`.execute(db);
    await db.schema
      .createTable('hooks')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('form_id', 'text', (c) => c.references('forms.id').onDelete('cascade'))
      .addColumn('event', 'text', (c) => c.notNull())
      .addColumn('target_url', 'text', (c) => c.notNull())
      .addColumn('secret', 'text', (c) => c.notNull())
      .addColumn('created_by', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('token_id', 'text', (c) => c.references('tokens.id').onDelete('cascade'))
      .addColumn('automation_key_id', 'text', (c) => c.references('automation_keys.id').onDelete('cascade'))
      .addColumn('last_tried_at', 'bigint')
      .addColumn('last_status', 'text')
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await sql`CREATE INDEX hooks_workspace ON hooks (workspace_id, created_at, id)`.execute(db);
    await sql`CREATE INDEX hooks_form ON hooks (form_id)`.execute(db);
    if (dialect === 'sqlite') {
      for (const change of ['INSERT', 'UPDATE OF workspace_id, form_id, event, target_url, secret', 'DELETE']) {
        const name = `hooks_intake_${change.split(' ')[0]!.toLowerCase()}`;
        await sql.raw(`CREATE TRIGGER ${name} AFTER ${change} ON hooks BEGIN UPDATE change_counts SET n = n + 1 WHERE name = 'intake_forms'; END`).execute(db);
      }
      return;
    }
    await sql
      .raw(
        `CREATE TRIGGER hooks_intake AFTER INSERT OR UPDATE OF workspace_id, form_id, event, target_url, secret OR DELETE ON hooks FOR EACH STATEMENT EXECUTE FUNCTION formgate_notify_change('intake_forms')`,
      )
      .execute(db);
  },
};
