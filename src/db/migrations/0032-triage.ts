import { sql, type Kysely } from 'kysely';
import type { Migration } from './index.js';

/**
 * Triage (issue 41, items 5 and 6): a submission is open until someone marks it done, and it may be
 * assigned to a member of its workspace. Neither is part of the API's Submission object.
 * - `done_at`: when it was marked done (ms), null while open; new submissions are open.
 * - `assignee_id`: the member it is assigned to, null for nobody; cleared when the person is deleted
 *   (here) or leaves the workspace (services/members.ts).
 * The inbox's default view lists open ones newest first: partial indexes of the open accepted
 * submissions, per form and per workspace, keep a page of them as cheap as a page of all, however
 * many are done. A member's own are found through the index of assigned ones (new submissions,
 * unassigned, are not in it: intake pays for the two open indexes only).
 */
export const triage: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('submissions').addColumn('done_at', 'bigint').execute();
    await db.schema
      .alterTable('submissions')
      .addColumn('assignee_id', 'text', (c) => c.references('users.id').onDelete('set null'))
      .execute();
    // NOTE: `status` in the columns too, though constant: SQLite takes the index with the most equality terms, and
    // between the listing index (form_id, status, …) and this one, with as many, the partial one
    await sql`CREATE INDEX submissions_form_open ON submissions (form_id, status, created_at, id) WHERE status = 'accepted' AND done_at IS NULL`.execute(db);
    await sql`CREATE INDEX submissions_workspace_open ON submissions (workspace_id, status, created_at, id) WHERE status = 'accepted' AND done_at IS NULL`.execute(
      db,
    );
    await sql`CREATE INDEX submissions_assigned ON submissions (assignee_id, created_at, id) WHERE assignee_id IS NOT NULL`.execute(db);
  },
};
