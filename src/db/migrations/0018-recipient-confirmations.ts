import { sql, type Kysely } from 'kysely';
import { type Dialect, fromJson } from '../database.js';
import type { Migration } from './index.js';

const BATCH = 500;

/**
 * Which addresses outside a workspace's team agreed to its notifications (issue 24, item 5). The
 * addresses already on forms are recorded as confirmed: they were set under the old rules, often
 * long ago, and an upgrade must not silently stop an installation's notifications.
 */
export const recipientConfirmations: Migration = {
  async up(db: Kysely<any>, _dialect: Dialect) {
    await db.schema
      .createTable('recipient_confirmations')
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('token_hash', 'text', (c) => c.unique())
      .addColumn('requested_by', 'text', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('last_sent_at', 'bigint')
      .addColumn('answered_at', 'bigint')
      .addPrimaryKeyConstraint('recipient_confirmations_pk', ['workspace_id', 'email'])
      .execute();
    // the hourly allowances: a workspace's links sent lately, and an address's from every workspace
    await db.schema.createIndex('recipient_confirmations_workspace_sent').on('recipient_confirmations').columns(['workspace_id', 'last_sent_at']).execute();
    await db.schema.createIndex('recipient_confirmations_email_sent').on('recipient_confirmations').columns(['email', 'last_sent_at']).execute();

    const now = Date.now();
    // aliases without underscores: read the same with or without the caller's CamelCasePlugin
    const { rows: forms } = await sql<{
      workspace: string;
      emails: unknown;
    }>`SELECT workspace_id AS workspace, notification_emails AS emails FROM forms`.execute(db);
    const seen = new Set<string>();
    const rows: Record<string, unknown>[] = [];
    for (const form of forms) {
      for (const address of fromJson<string[]>(form.emails)) {
        const email = address.trim().toLowerCase();
        const key = `${form.workspace}\n${email}`;
        if (seen.has(key)) continue;
        seen.add(key);
        rows.push({ workspace_id: form.workspace, email, state: 'confirmed', created_at: now, updated_at: now, answered_at: now });
      }
    }
    for (let i = 0; i < rows.length; i += BATCH) {
      await db
        .insertInto('recipient_confirmations')
        .values(rows.slice(i, i + BATCH))
        .execute();
    }
  },
};
