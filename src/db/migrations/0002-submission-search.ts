import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import type { Migration } from './index.js';

/**
 * Substring search over submissions: `search_text` holds the lower-cased field names and values.
 * SQLite indexes it with an FTS5 trigram table kept by triggers (rowid = submissions.seq);
 * PostgreSQL with a pg_trgm GIN index. Both answer a substring pattern from the index
 * (GLOB on SQLite, where FTS5 cannot use the index for LIKE with ESCAPE; LIKE on PostgreSQL).
 */
export const submissionSearch: Migration = {
  async up(db: Kysely<any>, dialect: Dialect) {
    await db.schema
      .alterTable('submissions')
      .addColumn('search_text', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
    if (dialect === 'postgres') {
      await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.execute(db);
      await sql`CREATE INDEX submissions_search_trgm ON submissions USING gin (search_text gin_trgm_ops)`.execute(db);
      return;
    }
    // External content: the index reads `search_text` from submissions when it checks a candidate.
    await sql`CREATE VIRTUAL TABLE submissions_search USING fts5(search_text, tokenize = 'trigram', content = 'submissions', content_rowid = 'seq')`.execute(
      db,
    );
    await sql`CREATE TRIGGER submissions_search_insert AFTER INSERT ON submissions BEGIN
      INSERT INTO submissions_search (rowid, search_text) VALUES (new.seq, new.search_text); END`.execute(db);
    await sql`CREATE TRIGGER submissions_search_delete AFTER DELETE ON submissions BEGIN
      INSERT INTO submissions_search (submissions_search, rowid, search_text) VALUES ('delete', old.seq, old.search_text); END`.execute(db);
  },
};
