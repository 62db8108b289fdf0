import { sql, type Kysely } from 'kysely';
import type { Migration } from './index.js';

/**
 * The daily digest of what is open and assigned to a member (issue 41, item 6):
 * - `workspace_members.assigned_digest`: 1 while the member wants it. 0 (off) by default, for every
 *   member already there and every new one: it is a new email nobody asked for, and each member
 *   already gets an email as soon as someone else assigns them a submission; the spam digest is on
 *   by default because nobody else would see what the filter caught, this one only repeats what the
 *   inbox's Mine view shows.
 * - `workspace_members.assigned_digest_sent_at`: when the member's last one went (ms), null: never;
 *   at most one a day, across restarts and instances (services/assigned-digests.ts).
 * - `submissions_assigned_open`: the open accepted submissions assigned to someone, by assignee and
 *   workspace, oldest first: a digest counts (up to a cap) and lists the oldest and newest few from it,
 *   however many done ones its member has. Intake pays nothing (new submissions are unassigned).
 */
export const assignedDigest: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .alterTable('workspace_members')
      .addColumn('assigned_digest', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable('workspace_members').addColumn('assigned_digest_sent_at', 'bigint').execute();
    await sql`CREATE INDEX submissions_assigned_open ON submissions (assignee_id, workspace_id, created_at, id) WHERE assignee_id IS NOT NULL AND status = 'accepted' AND done_at IS NULL`.execute(
      db,
    );
  },
};
