import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import type { Migration } from './index.js';

/**
 * Retention per form (issue 27): `retention_days`, the days a form's submissions are kept before the
 * hourly retention deletes them; null (the default) keeps them. The partial index lets the hourly
 * run find the forms that set one without reading every form.
 */
export const formRetention: Migration = {
  async up(db: Kysely<any>, _dialect: Dialect) {
    await db.schema.alterTable('forms').addColumn('retention_days', 'integer').execute();
    await sql`CREATE INDEX forms_retention ON forms (id) WHERE retention_days IS NOT NULL`.execute(db);
  },
};
