import { sql, type Expression, type SqlBool } from 'kysely';
import type { Dialect } from './database.js';

/**
 * The condition "this submission's names or values contain `term`", case-insensitively: the
 * stored text and the term are both lower-cased, and each dialect's trigram index (migration
 * 0002) answers the substring pattern. On SQLite the candidates are the index's matches and the
 * rows not yet indexed (the search backlog, migration 0009); each is then checked for the term.
 */
export function submissionMatches(dialect: Dialect, term: string): Expression<SqlBool> {
  if (dialect === 'postgres') return sql<SqlBool>`submissions.search_text LIKE ${likePattern(term)}`;
  const pattern = globPattern(term);
  const words = longestWords(term);
  // NOTE: for a term of several words the index is asked for rows holding its longest words, and
  // each of those rows is then checked for the whole term. Asked for the whole term, FTS5 matched
  // every trigram of it, the common ones of short words ("abo", " a ") too: several times slower.
  const indexed =
    words.length === 0
      ? sql`SELECT rowid FROM submissions_search WHERE search_text GLOB ${pattern}`
      : sql`SELECT rowid FROM submissions_search WHERE submissions_search MATCH ${words.map((word) => `"${word.replaceAll('"', '""')}"`).join(' AND ')}`;
  return sql<SqlBool>`submissions.seq IN (${indexed} UNION ALL SELECT seq FROM search_backlog) AND submissions.search_text GLOB ${pattern}`;
}

/** Of a term of several words, the two longest of three characters or more (a trigram's length); none for one word. */
function longestWords(term: string): string[] {
  const words = term.trim().toLowerCase().split(/\s+/);
  if (words.length < 2) return [];
  const length = (word: string) => [...word].length;
  return [...new Set(words)]
    .filter((word) => length(word) >= 3)
    .sort((a, b) => length(b) - length(a))
    .slice(0, 2);
}

/**
 * The list's own conditions (accepted, and of this form or workspace) for a query the search index
 * drives. On SQLite a unary `+` keeps them off the listing indexes, so the plan starts from the few
 * matches of a rare term, each looked up by key, instead of walking the whole list to test each row.
 */
export function searchScope(dialect: Dialect, column: 'formId' | 'workspaceId', value: string): Expression<SqlBool> {
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

// backslash is PostgreSQL's default LIKE escape
function likePattern(term: string): string {
  return `%${term.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

// GLOB is case-sensitive (fine: both sides are lower-case); [x] quotes a special character
function globPattern(term: string): string {
  return `*${term.toLowerCase().replace(/[*?[]/g, (c) => `[${c}]`)}*`;
}
