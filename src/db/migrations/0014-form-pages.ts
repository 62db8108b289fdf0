import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import type { Migration } from './index.js';

/**
 * What the dashboard's form pages show that nothing kept before: why a submission was quarantined,
 * why an autoresponder was paused, and each form's submissions per day (its charts) with the day's
 * newest arrival, counted as they are written so a chart reads 30 rows, not 30 days of submissions.
 */
export const formPages: Migration = {
  async up(db: Kysely<any>, _dialect: Dialect) {
    // JSON arrays of sentences, as text on both dialects: only ever shown, never queried
    await db.schema.alterTable('submissions').addColumn('spam_reasons', 'text').execute();
    await db.schema.alterTable('templates').addColumn('paused_reasons', 'text').execute();

    await db.schema
      .createTable('daily_counts')
      .addColumn('form_id', 'text', (c) => c.notNull().references('forms.id').onDelete('cascade'))
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      // days since 1970-01-01, in UTC
      .addColumn('day', 'integer', (c) => c.notNull())
      .addColumn('accepted', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('spam', 'integer', (c) => c.notNull().defaultTo(0))
      // the day's newest arrival (epoch ms): a form's last submission is its newest day's
      .addColumn('last_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('daily_counts_pkey', ['form_id', 'day'])
      .execute();
    await db.schema.createIndex('daily_counts_workspace_day').on('daily_counts').columns(['workspace_id', 'day']).execute();
    await sql`
      INSERT INTO daily_counts (form_id, workspace_id, day, accepted, spam, last_at)
      SELECT form_id, workspace_id, created_at / 86400000,
             SUM(CASE WHEN status = 'spam' THEN 0 ELSE 1 END), SUM(CASE WHEN status = 'spam' THEN 1 ELSE 0 END), MAX(created_at)
      FROM submissions GROUP BY form_id, workspace_id, created_at / 86400000`.execute(db);
  },
};
