import { sql, type Kysely } from 'kysely';
import type { Migration } from './index.js';

/**
 * The two indexes of rare lookups hold only the rows those lookups look for: expired spam (the
 * purge) and held submissions (released when a plan grows). Before, every accepted submission was
 * written into both: two of the five index writes of each intake, besides the search index. Their
 * queries name the status as a literal, since a partial index serves only a query whose condition
 * implies its own.
 */
export const partialIndexes: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.dropIndex('submissions_status_created').execute();
    await db.schema.dropIndex('submissions_workspace_status_seq').execute();
    await sql`CREATE INDEX submissions_spam_created ON submissions (created_at) WHERE status = 'spam'`.execute(db);
    await sql`CREATE INDEX submissions_held_seq ON submissions (workspace_id, seq) WHERE status = 'held'`.execute(db);
  },
};
