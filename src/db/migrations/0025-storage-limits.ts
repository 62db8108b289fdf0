import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import type { Migration } from './index.js';

/**
 * Limits that hold under concurrency (issue 38, items 4 and 5).
 * - `workspaces.file_bytes_reserved` and `file_reservations`: bytes of files being received,
 *   reserved as they stream (one conditional UPDATE of the workspace's row: used + reserved + n must
 *   stay within the allowance), one row per post holding what it reserved, so that what a crashed
 *   process reserved is given back once the row expires (db/file-reservations.ts).
 * - `spam_days`: per workspace and day, the spam the filter caught (count and bytes) and the spam
 *   dropped because the workspace's spam folder was full. The folder's bound is checked against the
 *   days still within the spam retention: an upper bound of what the folder holds that needs no
 *   count kept right by every deletion. Filled from the spam already stored.
 */
export const storageLimits: Migration = {
  async up(db: Kysely<any>, dialect: Dialect) {
    await db.schema
      .alterTable('workspaces')
      .addColumn('file_bytes_reserved', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .createTable('file_reservations')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('bytes', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('file_reservations_expires').on('file_reservations').columns(['expires_at']).execute();
    await db.schema
      .createTable('spam_days')
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('day', 'integer', (c) => c.notNull())
      .addColumn('caught', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('bytes', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('dropped', 'integer', (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('spam_days_pk', ['workspace_id', 'day'])
      .execute();
    const day = dialect === 'postgres' ? sql`CAST(created_at / 86400000 AS integer)` : sql`CAST(created_at / 86400000 AS INTEGER)`;
    const bytes = dialect === 'postgres' ? sql`octet_length(data::text)` : sql`length(CAST(data AS BLOB))`;
    await sql`INSERT INTO spam_days (workspace_id, day, caught, bytes, dropped)
      SELECT workspace_id, ${day}, count(*), sum(${bytes}), 0 FROM submissions WHERE status = 'spam' GROUP BY workspace_id, ${day}`.execute(db);
  },
};
