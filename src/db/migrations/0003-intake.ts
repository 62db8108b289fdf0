import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import type { Migration } from './index.js';

/**
 * What the submit pipeline keeps: the email controls of a submission (for the email step), the
 * count of honeypot drops per form, when a workspace's owners were told its allowance ran out,
 * and an index for purging expired spam.
 */
export const intake: Migration = {
  async up(db: Kysely<any>, dialect: Dialect) {
    const json = dialect === 'postgres' ? 'jsonb' : 'text';
    await db.schema.alterTable('submissions').addColumn('email_controls', json).execute();
    await db.schema
      .alterTable('forms')
      .addColumn('honeypot_drops', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable('workspaces').addColumn('quota_notified_at', 'bigint').execute();
    await db.schema.createIndex('submissions_status_created').on('submissions').columns(['status', 'created_at']).execute();
    // Held submissions are released oldest first, per workspace.
    await db.schema.createIndex('submissions_workspace_status_seq').on('submissions').columns(['workspace_id', 'status', 'seq']).execute();
  },
};
