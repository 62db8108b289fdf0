import type { Kysely } from 'kysely';
import type { Migration } from './index.js';

/** A form's email templates: at most one per kind (`notification`, `autoresponder`). */
export const templates: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('templates')
      .addColumn('form_id', 'text', (c) => c.notNull().references('forms.id').onDelete('cascade'))
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('mode', 'text', (c) => c.notNull())
      .addColumn('code', 'text', (c) => c.notNull())
      // 0/1 for the autoresponder (content check); null for the notification template
      .addColumn('paused', 'integer')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('templates_pk', ['form_id', 'kind'])
      .execute();
  },
};
