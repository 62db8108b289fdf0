import { sql, type Kysely } from 'kysely';
import type { Migration } from './index.js';

/**
 * A form's inbox says how many of its open submissions are the viewer's ("Mine", issue 41): counted
 * up to OPEN_CAP on every page of it. Neither index of 0032/0033 holds both the assignee and the
 * form, so the count read every open submission assigned to the viewer across the workspace (or, on
 * SQLite, every one ever assigned to them, done ones too) from the table: 2.8 ms (SQLite) and 6 ms
 * (PostgreSQL) a page at 100,000 submissions (`npm run bench`, inbox). This partial index of open
 * accepted assigned submissions by form and assignee answers it from the index alone, and lists a
 * form's Mine view newest first. The form first: a query of a workspace's assigned ones (the digest's)
 * cannot take it for 0033's. `status` among the columns, though constant, as in 0032: SQLite takes
 * the index with the most equality terms. Intake pays nothing (new submissions are unassigned).
 */
export const formAssignedOpen: Migration = {
  async up(db: Kysely<any>) {
    await sql`CREATE INDEX submissions_form_assigned_open ON submissions (form_id, assignee_id, status, created_at, id) WHERE assignee_id IS NOT NULL AND status = 'accepted' AND done_at IS NULL`.execute(
      db,
    );
  },
};
