import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import type { Migration } from './index.js';

// Tables are snake_case; times are epoch milliseconds (bigint); booleans are 0/1 integers.
export const initial: Migration = {
  async up(db: Kysely<any>, dialect: Dialect) {
    const json = dialect === 'postgres' ? 'jsonb' : 'text';

    await db.schema
      .createTable('settings')
      .addColumn('key', 'text', (c) => c.primaryKey().notNull())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();

    await db.schema
      .createTable('users')
      .addColumn('id', 'text', (c) => c.primaryKey().notNull())
      .addColumn('email', 'text', (c) => c.notNull().unique())
      .addColumn('password_hash', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('workspaces')
      .addColumn('id', 'text', (c) => c.primaryKey().notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('plan', 'text', (c) => c.notNull())
      .addColumn('owner_id', 'text', (c) => c.notNull().references('users.id'))
      .addColumn('submissions_used', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('workspaces_owner_id').on('workspaces').column('owner_id').execute();

    await db.schema
      .createTable('workspace_members')
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('workspace_members_pk', ['workspace_id', 'user_id'])
      .execute();
    await db.schema.createIndex('workspace_members_user_id').on('workspace_members').columns(['user_id', 'workspace_id']).execute();

    await db.schema
      .createTable('tokens')
      .addColumn('id', 'text', (c) => c.primaryKey().notNull())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('scopes', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'bigint')
      .addColumn('last_used_at', 'bigint')
      .addColumn('revoked_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('tokens_user_id_name').on('tokens').columns(['user_id', 'name']).execute();

    await db.schema
      .createTable('forms')
      .addColumn('id', 'text', (c) => c.primaryKey().notNull())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('technology', 'text')
      .addColumn('notification_emails', json, (c) => c.notNull())
      .addColumn('email_threading', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('webhook_url', 'text')
      .addColumn('slack_channel', 'text')
      .addColumn('custom_honeypot', 'text')
      .addColumn('custom_spam_words', 'text')
      .addColumn('spam_protection', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('forms_workspace_created').on('forms').columns(['workspace_id', 'created_at', 'id']).execute();

    await db.schema
      .createTable('form_secrets')
      .addColumn('form_id', 'text', (c) => c.notNull().references('forms.id').onDelete('cascade'))
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('secret', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('form_secrets_pk', ['form_id', 'provider'])
      .execute();

    // `seq` is an integer key in insertion order: the rowid of SQLite's full-text index points at it.
    await db.schema
      .createTable('submissions')
      .addColumn('seq', dialect === 'postgres' ? 'bigint' : 'integer', (c) =>
        dialect === 'postgres' ? c.primaryKey().generatedAlwaysAsIdentity() : c.primaryKey(),
      )
      .addColumn('id', 'text', (c) => c.notNull().unique())
      .addColumn('form_id', 'text', (c) => c.notNull().references('forms.id').onDelete('cascade'))
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('data', json, (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('submissions_form_listing').on('submissions').columns(['form_id', 'status', 'created_at', 'id']).execute();
    await db.schema.createIndex('submissions_workspace_listing').on('submissions').columns(['workspace_id', 'status', 'created_at', 'id']).execute();
  },
};
