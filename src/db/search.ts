import { sql, type Expression, type SqlBool } from 'kysely';
import type { Dialect } from './database.js';

/**
 * The condition "this submission's names or values contain `term`", case-insensitively: the
 * stored text and the term are both lower-cased, and each dialect's trigram index (migration
 * 0002) answers the substring pattern.
 */
export function submissionMatches(dialect: Dialect, term: string): Expression<SqlBool> {
  const lower = term.toLowerCase();
  if (dialect === 'postgres') {
    // backslash is PostgreSQL's default LIKE escape
    const pattern = `%${lower.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return sql<SqlBool>`submissions.search_text LIKE ${pattern}`;
  }
  // GLOB is case-sensitive (fine: both sides are lower-case); [x] quotes a special character
  const pattern = `*${lower.replace(/[*?[]/g, (c) => `[${c}]`)}*`;
  return sql<SqlBool>`submissions.seq IN (SELECT rowid FROM submissions_search WHERE search_text GLOB ${pattern})`;
}
