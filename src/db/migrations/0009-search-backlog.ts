import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import type { Migration } from './index.js';

/**
 * SQLite's search index (FTS5, migration 0002) is no longer written in the transaction that stores a
 * submission. The insert trigger now only notes the row's `seq` in `search_backlog`, and the search
 * indexer (jobs/search-indexer.ts) moves the backlog into the index in chunks, after the visitors have
 * been answered. A search checks the backlog's rows one by one, so it finds a row the moment it is
 * stored, indexed or not. Indexing in the intake transaction was ~30 µs of each submission and
 * flushed FTS5's pending terms in every group commit, and its segment merges stalled a commit now
 * and then by 100 ms; PostgreSQL's trigram index does the same with its own pending list.
 * Rows stored before this migration are already indexed: the backlog starts empty.
 */
export const searchBacklog: Migration = {
  async up(db: Kysely<any>, dialect: Dialect) {
    if (dialect !== 'sqlite') return;
    await sql`CREATE TABLE search_backlog (seq INTEGER PRIMARY KEY)`.execute(db);
    await sql`DROP TRIGGER submissions_search_insert`.execute(db);
    await sql`DROP TRIGGER submissions_search_delete`.execute(db);
    await sql`CREATE TRIGGER submissions_search_insert AFTER INSERT ON submissions BEGIN
      INSERT INTO search_backlog (seq) VALUES (new.seq); END`.execute(db);
    // NOTE: FTS5's 'delete' must be given exactly what it indexed, or "the results may be
    // unpredictable" (sqlite.org/fts5.html): a row still in the backlog is only taken out of it.
    // Membership is by the backlog, not by seq order: a deleted row's seq can come back (a plain rowid).
    await sql`CREATE TRIGGER submissions_search_delete AFTER DELETE ON submissions BEGIN
      INSERT INTO submissions_search (submissions_search, rowid, search_text)
        SELECT 'delete', old.seq, old.search_text WHERE NOT EXISTS (SELECT 1 FROM search_backlog WHERE seq = old.seq);
      DELETE FROM search_backlog WHERE seq = old.seq; END`.execute(db);
    // The indexer's chunks are larger than intake's batches were; merging 16 segments of a level at
    // once then held a chunk's commit for up to ~100 ms, 64 keeps it nearer 30 (automerge is 16, 0008).
    await sql`INSERT INTO submissions_search (submissions_search, rank) VALUES ('crisismerge', 64)`.execute(db);
  },
};
