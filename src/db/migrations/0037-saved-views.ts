import type { Kysely } from 'kysely';
import type { Migration } from './index.js';

/**
 * Saved views of the inbox (issue 41, item 8): each member's own few, per workspace, as JSON in their
 * membership row (services/saved-views.ts: at most SAVED_VIEWS_MAX, each a name and the inbox's
 * query string). In the membership row, they go when the member leaves or the workspace goes, and
 * reading them is the read of one row the inbox already makes. Null: none.
 */
export const savedViews: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('workspace_members').addColumn('saved_views', 'text').execute();
  },
};
