import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import { foldForSearch } from '../domain/search-fold.js';
import type { Dialect } from './database.js';

/** Which list a search is of: a form's submissions or a whole workspace's. */
export type SearchScopeColumn = 'formId' | 'workspaceId';

/**
 * PostgreSQL's condition "this submission's names or values contain `term`", case-insensitively:
 * the stored text and the term are both lower-cased, and the trigram index of the list's workspace
 * or form (migration 0017) answers the substring pattern.
 */
export function postgresMatches(term: string): Expression<SqlBool> {
  return sql<SqlBool>`submissions.search_text LIKE ${likePattern(term)}`;
}

/**
 * SQLite's search index asked for the rows of one workspace or form whose text may contain `term`,
 * newest first, at most `cap + 1` of them (so that more than `cap` shows). Null when the index cannot
 * help: the term has no word of three characters or more (a trigram's length).
 */
export function indexCandidates(column: SearchScopeColumn, owner: string, term: string, cap: number): RawBuilder<{ seq: number }> | null {
  const query = indexQuery(column, owner, term);
  if (query === null) return null;
  return sql<{ seq: number }>`SELECT rowid AS seq FROM submissions_search WHERE submissions_search MATCH ${query} ORDER BY rowid DESC LIMIT ${cap + 1}`;
}

/**
 * SQLite's condition "contains `term`" for the index's `candidates` (indexCandidates) and the list's
 * rows not yet indexed (the search backlog, migration 0009): each is checked for the whole term.
 */
export function candidatesMatch(candidates: number[], column: SearchScopeColumn, owner: string, term: string): Expression<SqlBool> {
  // NOTE: CROSS JOIN fixes the order (SQLite keeps it as written) and `+` keeps the scope off its
  // index: the backlog (at most ~10,000 rows, jobs/search-indexer.ts) is walked, not the list.
  const ownBacklog = sql`SELECT search_backlog.seq FROM search_backlog CROSS JOIN submissions AS waiting ON waiting.seq = search_backlog.seq
    WHERE +waiting.${sql.ref(SCOPE_COLUMNS[column].table)} = ${owner}`;
  const indexed = sql`SELECT value FROM json_each(${JSON.stringify(candidates)})`;
  return sql<SqlBool>`submissions.seq IN (${indexed} UNION ALL ${ownBacklog}) AND submissions.search_text GLOB ${globPattern(term)}`;
}

/**
 * The FTS5 query of `term` within one workspace or form: the scope's token (its own column) AND the
 * term's trigrams. FTS5 walks the two postings together, seeking each to the other's next row, so
 * the work follows the list's own rows, not every tenant's matches of a common word.
 */
function indexQuery(column: SearchScopeColumn, owner: string, term: string): string | null {
  const words = indexedWords(term);
  if (words.length === 0) return null;
  const phrases = words.map((word) => `search_text : "${word.replaceAll('"', '""')}"`);
  return [`${SCOPE_COLUMNS[column].index} : "${scopeToken(owner)}"`, ...phrases].join(' AND ');
}

/**
 * What the index is asked for: the term itself when it is one word; of a term of several words its
 * two longest words of three characters or more (a trigram's length), each row then checked for the
 * whole term. Asked for the whole term, FTS5 matched every trigram of it, the common ones of short
 * words ("abo", " a ") too: several times slower. None when no word is long enough.
 */
function indexedWords(term: string): string[] {
  const length = (word: string) => [...word].length;
  const folded = foldForSearch(term);
  const words = folded.split(/\s+/).filter((word) => length(word) >= 3);
  if (!/\s/.test(folded.trim())) return length(folded) >= 3 ? [folded] : [];
  return [...new Set(words)].sort((a, b) => length(b) - length(a)).slice(0, 2);
}

// The scope columns of the submissions table and of SQLite's search index (migration 0017).
const SCOPE_COLUMNS = {
  workspaceId: { table: 'workspace_id', index: 'workspace_scope' },
  formId: { table: 'form_id', index: 'form_scope' },
} as const;

// NOTE: a scope token is three characters of Unicode's private use area (U+E000 up), each from two
// of the id's last six characters (5 bits each: ids are base32), so the trigram tokenizer indexes it
// as exactly one token. Two ids that share a token only share postings: every candidate is still
// checked against the list's own workspace or form. scopeTokenSql computes the same in SQL.
const TOKEN_BASE = 0xe000;
const ID_TAIL = 6;

/** The index's token of a workspace or form id. */
export function scopeToken(id: string): string {
  const tail = [...`${'0'.repeat(ID_TAIL)}${id}`].slice(-ID_TAIL).map((c) => c.codePointAt(0)! & 31);
  let token = '';
  for (let i = 0; i < ID_TAIL; i += 2) token += String.fromCodePoint(TOKEN_BASE + tail[i]! * 32 + tail[i + 1]!);
  return token;
}

/** scopeToken in SQLite's SQL, of the id in `column` (a column of submissions, as the indexer and migration 0017 read it). */
export function scopeTokenSql(column: 'workspace_id' | 'form_id'): RawBuilder<string> {
  const tail = sql`substr(${sql.lit('0'.repeat(ID_TAIL))} || ${sql.ref(column)}, ${sql.lit(-ID_TAIL)})`;
  const bits = (n: number) => sql`(unicode(substr(${tail}, ${sql.lit(n)}, 1)) & 31)`;
  const char = (n: number) => sql`${sql.lit(TOKEN_BASE)} + ${bits(n)} * 32 + ${bits(n + 1)}`;
  return sql<string>`char(${char(1)}, ${char(3)}, ${char(5)})`;
}

/**
 * The list's own conditions (accepted, and of this form or workspace) for a query the search index
 * drives. On SQLite a unary `+` keeps them off the listing indexes, so the plan starts from the few
 * matches of a rare term, each looked up by key, instead of walking the whole list to test each row.
 */
export function searchScope(dialect: Dialect, column: SearchScopeColumn, value: string): Expression<SqlBool> {
  const [status, owner] = [sql.ref('submissions.status'), sql.ref(`submissions.${column}`)];
  if (dialect === 'postgres') return sql<SqlBool>`${status} = 'accepted' AND ${owner} = ${value}`;
  return sql<SqlBool>`+${status} = 'accepted' AND +${owner} = ${value}`;
}

/**
 * The same condition checked on the row's own `searchText` of `table` (a subquery's alias), without
 * the index: cheaper than the index when the rows to check are few and many of them match.
 * `pattern` is the term's searchPattern, or a PreparedQuery's placeholder for it.
 */
export function searchTextMatches(dialect: Dialect, pattern: unknown, table: string): Expression<SqlBool> {
  const column = sql.ref(`${table}.searchText`);
  return dialect === 'postgres' ? sql<SqlBool>`${column} LIKE ${pattern}` : sql<SqlBool>`${column} GLOB ${pattern}`;
}

/** The pattern searchTextMatches compares with: "contains `term`", as LIKE or GLOB reads it. */
export function searchPattern(dialect: Dialect, term: string): string {
  return dialect === 'postgres' ? likePattern(term) : globPattern(term);
}

// The term is folded as the stored text was (domain/search-fold.ts).
// backslash is PostgreSQL's default LIKE escape
function likePattern(term: string): string {
  return `%${foldForSearch(term).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

// GLOB is case-sensitive (fine: both sides are folded to lower case); [x] quotes a special character
function globPattern(term: string): string {
  return `*${foldForSearch(term).replace(/[*?[]/g, (c) => `[${c}]`)}*`;
}
