import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import type { Migration } from './index.js';

/**
 * SQLite's search index (FTS5, migration 0002) merges its segments at 16 of a size instead of 4.
 * Every batch of submissions adds a small segment, and merging every 4 rewrote each row's trigrams
 * over and over: with varied text, 83 of the 119 µs it took to store a submission with its jobs,
 * against 52 µs at 16. A search reads a few more segments; on the benchmark it was as fast.
 * PostgreSQL's trigram index has no such setting to change.
 */
export const searchAutomerge: Migration = {
  async up(db: Kysely<any>, dialect: Dialect) {
    if (dialect !== 'sqlite') return;
    await sql`INSERT INTO submissions_search (submissions_search, rank) VALUES ('automerge', 16)`.execute(db);
  },
};
