import { sql, type Kysely } from 'kysely';
import type { Migration } from './index.js';

/**
 * Labels (issue 41, item 7): named and coloured per workspace, many per submission.
 * - `labels`: a workspace's labels; `folded` is the name in lower case, unique per workspace, so
 *   "Urgent" and "urgent" are one label on both dialects (an expression index would differ).
 * - `submission_labels`: which submission carries which label, with the submission's time, so that a
 *   label's view is read newest first from its own index (`label_id, created_at, submission_id`),
 *   however many submissions its workspace has. Both go with their submission, label or workspace.
 */
export const labels: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('labels')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('folded', 'text', (c) => c.notNull())
      .addColumn('color', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await sql`CREATE UNIQUE INDEX labels_workspace_folded ON labels (workspace_id, folded)`.execute(db);
    await db.schema
      .createTable('submission_labels')
      .addColumn('submission_id', 'text', (c) => c.notNull().references('submissions.id').onDelete('cascade'))
      .addColumn('label_id', 'text', (c) => c.notNull().references('labels.id').onDelete('cascade'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('submission_labels_pkey', ['submission_id', 'label_id'])
      .execute();
    await sql`CREATE INDEX submission_labels_label ON submission_labels (label_id, created_at, submission_id)`.execute(db);
  },
};
