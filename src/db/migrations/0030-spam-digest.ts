import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import type { Migration } from './index.js';

/**
 * The spam digest (issue 40, item 3):
 * - `spam_digests`: per workspace, how often its digest goes out (`daily`, `weekly`, `off`; no row:
 *   daily), when the last one was sent, and the time up to which it listed spam (`listed_through`),
 *   so no spam is listed twice or missed across restarts and instances (services/spam-digests.ts).
 * - `workspace_members.spam_digest`: 1 while the member wants the digest, 0 once they turned it off.
 */
export const spamDigest: Migration = {
  async up(db: Kysely<any>, _dialect: Dialect) {
    await db.schema
      .createTable('spam_digests')
      .addColumn('workspace_id', 'text', (c) => c.primaryKey().references('workspaces.id').onDelete('cascade'))
      .addColumn('frequency', 'text', (c) => c.notNull().defaultTo('daily'))
      .addColumn('sent_at', 'bigint')
      .addColumn('listed_through', 'bigint')
      .execute();
    await db.schema
      .alterTable('workspace_members')
      .addColumn('spam_digest', 'integer', (c) => c.notNull().defaultTo(1))
      .execute();
  },
};
