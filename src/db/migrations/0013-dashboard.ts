import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import type { Migration } from './index.js';

/**
 * The dashboard's tables: browser sessions, password reset links, team invitations, and the
 * instance admin flag. Every secret a link or cookie carries is stored as its SHA-256 only.
 */
export const dashboard: Migration = {
  async up(db: Kysely<any>, _dialect: Dialect) {
    await db.schema
      .alterTable('users')
      .addColumn('is_admin', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    // An installation that already has accounts: its oldest one becomes the instance admin, as
    // the first account of a new installation does.
    await sql`UPDATE users SET is_admin = 1 WHERE id = (SELECT id FROM users ORDER BY created_at, id LIMIT 1)`.execute(db);
    await sql`INSERT INTO settings (key, value, created_at) SELECT 'instance-admin', id, created_at FROM users WHERE is_admin = 1`.execute(db);

    // the admin page lists accounts and workspaces newest first, a keyset page at a time
    await db.schema.createIndex('users_created_id').on('users').columns(['created_at', 'id']).execute();
    await db.schema.createIndex('workspaces_created_id').on('workspaces').columns(['created_at', 'id']).execute();

    await db.schema
      .createTable('sessions')
      .addColumn('id_hash', 'text', (c) => c.primaryKey().notNull())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('sessions_user_id').on('sessions').column('user_id').execute();

    await db.schema
      .createTable('password_resets')
      .addColumn('token_hash', 'text', (c) => c.primaryKey().notNull())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('used_at', 'bigint')
      .execute();
    await db.schema.createIndex('password_resets_user_id').on('password_resets').column('user_id').execute();

    await db.schema
      .createTable('invitations')
      .addColumn('id', 'text', (c) => c.primaryKey().notNull())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('invited_by', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('accepted_at', 'bigint')
      .addColumn('revoked_at', 'bigint')
      .execute();
    await db.schema.createIndex('invitations_workspace_id').on('invitations').columns(['workspace_id', 'email']).execute();
  },
};
