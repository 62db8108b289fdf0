import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import type { Migration } from './index.js';

/**
 * PostgreSQL keeps a submission's fields, its email controls and a job's payload as `json` rather
 * than `jsonb`: jsonb reorders an object's keys (shortest first), so fields came back, and went out
 * in emails and webhooks, in another order than the visitor's form had. `json` keeps the text as
 * written. Rows stored before this migration keep the order jsonb gave them. Rewrites the tables.
 */
export const orderedJson: Migration = {
  async up(db: Kysely<any>, dialect: Dialect) {
    if (dialect !== 'postgres') return;
    await sql`ALTER TABLE submissions ALTER COLUMN data TYPE json USING data::json, ALTER COLUMN email_controls TYPE json USING email_controls::json`.execute(
      db,
    );
    await sql`ALTER TABLE jobs ALTER COLUMN payload TYPE json USING payload::json`.execute(db);
  },
};
