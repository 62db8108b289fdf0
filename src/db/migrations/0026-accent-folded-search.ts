import { sql, type Kysely } from 'kysely';
import { foldForSearch } from '../../domain/search-fold.js';
import type { Dialect } from '../database.js';
import { scopeTokenSql } from '../search.js';
import type { Migration } from './index.js';

// Rows read per step of the walk.
const BATCH = 1_000;
// Stored text that folding could change holds a character past printable ASCII (ASCII is folded once lower-cased).
const PAST_ASCII = /[^\x20-\x7e\t\n\r]/;

/**
 * Search ignores accents (issue 39, item 17): `search_text` is folded by Formgate
 * (domain/search-fold.ts: lower case, Latin letters without accents) on both databases, and every
 * term the same way. Rows stored before hold the lower-cased text only: each one whose text folding
 * changes is rewritten here, walked by `seq` a batch at a time. On SQLite an indexed row is also
 * taken out of the FTS5 index and indexed again with its new text (rows still in the backlog are
 * indexed later by the indexer, from the new text); PostgreSQL's trigram index follows the update.
 * Folding the stored text is enough: it was the lower-cased fields, and folding lower-cases first.
 */
export const accentFoldedSearch: Migration = {
  async up(db: Kysely<any>, dialect: Dialect) {
    let after = 0;
    for (;;) {
      const { rows } = await sql<{ seq: number | string; text: string }>`SELECT seq, search_text AS text FROM submissions
        WHERE seq > ${after} ORDER BY seq LIMIT ${BATCH}`.execute(db);
      if (rows.length === 0) return;
      after = Number(rows[rows.length - 1]!.seq);
      const changed = rows
        .filter((row) => PAST_ASCII.test(row.text))
        .map((row) => ({ seq: Number(row.seq), text: foldForSearch(row.text), old: row.text }))
        .filter((row) => row.text !== row.old);
      for (const row of changed) await sql`UPDATE submissions SET search_text = ${row.text} WHERE seq = ${row.seq}`.execute(db);
      if (dialect === 'sqlite' && changed.length > 0)
        await reindex(
          db,
          changed.map((row) => row.seq),
        );
    }
  },
};

// SQLite: the rows' index entries made again from their new text (contentless_delete, migration 0017).
async function reindex(db: Kysely<any>, seqs: number[]): Promise<void> {
  const list = sql.join(seqs);
  const indexed = sql`SELECT seq FROM submissions WHERE seq IN (${list}) AND seq NOT IN (SELECT seq FROM search_backlog)`;
  await sql`DELETE FROM submissions_search WHERE rowid IN (${indexed})`.execute(db);
  // ascending rowids, as the indexer writes them
  await sql`INSERT INTO submissions_search (rowid, search_text, workspace_scope, form_scope)
    SELECT seq, search_text, ${scopeTokenSql('workspace_id')}, ${scopeTokenSql('form_id')} FROM submissions
    WHERE seq IN (${indexed}) ORDER BY seq`.execute(db);
}
