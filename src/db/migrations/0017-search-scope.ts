import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import { scopeTokenSql } from '../search.js';
import type { Migration } from './index.js';

/**
 * Search walks only the list's own workspace or form in the index (issue 24). SQLite's FTS5 index
 * (0002) was one instance-wide trigram index: a search of an empty form took every tenant's matches
 * of its term as candidates and dropped them afterwards, ~0.9 s at 200,000 rows of another account.
 * The index is rebuilt with two more columns, the row's workspace and form as one token each
 * (db/search.ts scopeToken), and a search asks for `<scope token> AND <term>`: FTS5 then steps
 * through the scope's postings and seeks the term's, so the work follows the list's own rows.
 * The new table is contentless with contentless_delete (SQLite 3.43): it keeps no copy of the text,
 * and a row leaves it by its rowid alone (no longer by the exact text it was indexed with).
 * Every row the old index held (those not in the backlog) is indexed again here, oldest first;
 * the backlog is left as it is, and the indexer moves it as before.
 *
 * PostgreSQL: the trigram index gains the workspace and form as leading keys (btree_gin), so a
 * search's bitmap is the list's own rows that hold the term's trigrams, instead of every tenant's.
 */
export const searchScope: Migration = {
  async up(db: Kysely<any>, dialect: Dialect) {
    if (dialect === 'postgres') {
      await sql`CREATE EXTENSION IF NOT EXISTS btree_gin`.execute(db);
      await sql`CREATE INDEX submissions_search_workspace ON submissions USING gin (workspace_id, search_text gin_trgm_ops)`.execute(db);
      await sql`CREATE INDEX submissions_search_form ON submissions USING gin (form_id, search_text gin_trgm_ops)`.execute(db);
      await sql`DROP INDEX submissions_search_trgm`.execute(db);
      return;
    }
    await sql`DROP TRIGGER submissions_search_delete`.execute(db);
    await sql`DROP TABLE submissions_search`.execute(db);
    await sql`CREATE VIRTUAL TABLE submissions_search USING fts5(search_text, workspace_scope, form_scope,
      tokenize = 'trigram', content = '', contentless_delete = 1)`.execute(db);
    // as 0008 and 0009 set them on the old index
    await sql`INSERT INTO submissions_search (submissions_search, rank) VALUES ('automerge', 16)`.execute(db);
    await sql`INSERT INTO submissions_search (submissions_search, rank) VALUES ('crisismerge', 64)`.execute(db);
    // A row still in the backlog is only taken out of it (it is not in the index yet).
    await sql`CREATE TRIGGER submissions_search_delete AFTER DELETE ON submissions BEGIN
      DELETE FROM submissions_search WHERE rowid = old.seq AND NOT EXISTS (SELECT 1 FROM search_backlog WHERE seq = old.seq);
      DELETE FROM search_backlog WHERE seq = old.seq; END`.execute(db);
    await sql`INSERT INTO submissions_search (rowid, search_text, workspace_scope, form_scope)
      SELECT seq, search_text, ${scopeTokenSql('workspace_id')}, ${scopeTokenSql('form_id')} FROM submissions
      WHERE NOT EXISTS (SELECT 1 FROM search_backlog WHERE search_backlog.seq = submissions.seq) ORDER BY seq`.execute(db);
  },
};
