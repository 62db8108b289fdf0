import type { SelectQueryBuilder } from 'kysely';
import { sql } from 'kysely';
import type { Database, Dialect, Queryable } from '../db/database.js';
import { PreparedQuery } from '../db/prepared-query.js';
import type { DB } from '../db/schema/index.js';
import { candidatesMatch, indexCandidates, postgresMatches, type SearchScopeColumn, searchPattern, searchScope, searchTextMatches } from '../db/search.js';
import { type Keyset, keysetPage, newestAfter, pageOf, type Page, type PageRequest } from './pagination.js';

/** What a listing returns of a submission. */
export interface SubmissionListRow {
  id: string;
  formId: string;
  data: unknown;
  createdAt: number;
}

/**
 * Which submissions a list shows: those whose fields contain `search`, that came from `from` (epoch
 * ms, inclusive) until `to` (exclusive); for the inbox and the triage API (issue 41), only open or
 * only done ones (`state`), and only those assigned to a member (`assigneeId`; null: to nobody).
 */
export interface SubmissionFilter {
  search?: string;
  from?: number;
  to?: number;
  state?: 'open' | 'done';
  assigneeId?: string | null;
  /** Only those that carry this label. */
  labelId?: string;
  /** Only those nobody of the team has opened yet (the inbox's view, issue 41 item 8). */
  unread?: boolean;
  /** Only those with a stored file. */
  hasFiles?: boolean;
}

/** Narrows a query of submissions to the filter's time range and triage (everything but its search). */
export function narrowedBy<Q extends SelectQueryBuilder<DB, 'submissions', object>>(
  query: Q,
  { from, to, state, assigneeId, labelId, unread, hasFiles }: SubmissionFilter,
): Q {
  let narrowed = query;
  if (from !== undefined) narrowed = narrowed.where('submissions.createdAt', '>=', from) as Q;
  if (to !== undefined) narrowed = narrowed.where('submissions.createdAt', '<', to) as Q;
  // `IS NULL` with the literal status of listedOf: what the partial indexes of open submissions name (migration 0032)
  if (state === 'open') narrowed = narrowed.where('submissions.doneAt', 'is', null) as Q;
  if (state === 'done') narrowed = narrowed.where('submissions.doneAt', 'is not', null) as Q;
  if (assigneeId === null) narrowed = narrowed.where('submissions.assigneeId', 'is', null) as Q;
  else if (assigneeId !== undefined) narrowed = narrowed.where('submissions.assigneeId', '=', assigneeId) as Q;
  if (labelId !== undefined) {
    narrowed = narrowed.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('submissionLabels')
          .select('submissionLabels.labelId')
          .whereRef('submissionLabels.submissionId', '=', 'submissions.id')
          .where('submissionLabels.labelId', '=', labelId),
      ),
    ) as Q;
  }
  if (unread) narrowed = narrowed.where('submissions.unread', '=', 1) as Q;
  if (hasFiles) {
    // the files' index (submission_id, position) answers each row's question
    narrowed = narrowed.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('submissionFiles')
          .select('submissionFiles.submissionId')
          .whereRef('submissionFiles.submissionId', '=', 'submissions.id')
          .where('submissionFiles.storageKey', 'is not', null),
      ),
    ) as Q;
  }
  return narrowed;
}

/** Whether the filter narrows by triage: such a list is not the plain one the prepared form pages serve. */
export function triaged(filter: SubmissionFilter): boolean {
  return filter.state !== undefined || filter.assigneeId !== undefined || filter.labelId !== undefined || filter.unread === true || filter.hasFiles === true;
}

// named, not `*`: a listing returns these, the API writes them out as stored
export const LIST_COLUMNS = ['submissions.id', 'submissions.formId', 'submissions.data', 'submissions.createdAt'] as const;

// How many rows of the list, from where the page starts, a search checks one by one before it asks
// the search index: a common term fills its page among them.
const RECENT_WINDOW = 2000;
/**
 * The most rows one search page checks one by one (~1 µs each on SQLite). A search of a longer list
 * whose term SQLite's index cannot answer cheaply checks this many rows of the list from where its
 * page starts: the page holds the matches among them (perhaps fewer than asked, perhaps none) and its
 * cursor continues after the last row checked, so the pages together are still exactly the matches.
 */
export const SEARCH_ROW_CAP = 10_000;
/**
 * The most candidates a search takes from SQLite's index: each is looked up and checked (~4 µs),
 * and producing them costs ~1 µs each. More than this, and the page checks SEARCH_ROW_CAP rows
 * instead. At 10,000 candidates the worst page measured ~48 ms of the event loop (200,000 rows of
 * one account), at 2,000 ~18 ms (docs/decisions.md).
 */
export const INDEX_CANDIDATE_CAP = 2_000;

export type ScopeColumn = SearchScopeColumn;

/** The listed (accepted) rows of one form or workspace: what every list and search starts from. */
export function listedOf(db: Queryable, column: ScopeColumn, owner: string) {
  // a literal: a partial index names it (the open ones', migration 0032), which a parameter would not match
  return db.selectFrom('submissions').where('submissions.status', '=', sql.lit('accepted')).where(`submissions.${column}`, '=', owner);
}

// A look at the next `window` rows of a form or workspace, each checked for the search pattern: the
// first `limit` matches (SQLite and PostgreSQL stop reading once they have them).
type ScanParams = { owner: string; pattern: string; window: number; limit: number; createdAt: number; id: string };
function listedAfter(db: Queryable, column: ScopeColumn, p: ScanParams, after: boolean, filter: SubmissionFilter) {
  return newestAfter(narrowedBy(listedOf(db, column, p.owner), filter), after ? { createdAt: p.createdAt, id: p.id } : null, 'submissions');
}
function scanQuery(db: Queryable, dialect: Dialect, column: ScopeColumn, p: ScanParams, after: boolean, filter: SubmissionFilter = {}) {
  const window = listedAfter(db, column, p, after, filter)
    .select([...LIST_COLUMNS, 'submissions.searchText'])
    .limit(p.window);
  const matching = db
    .selectFrom(window.as('window'))
    .select(['window.id', 'window.formId', 'window.data', 'window.createdAt'])
    .where(searchTextMatches(dialect, p.pattern, 'window'));
  return newestAfter(matching, null, 'window').limit(p.limit);
}
// The window's last row and the one after it, if any: where the next page starts, and whether there is one.
function windowEndQuery(db: Queryable, column: ScopeColumn, p: ScanParams, after: boolean, filter: SubmissionFilter = {}) {
  return listedAfter(db, column, p, after, filter).select(['submissions.createdAt', 'submissions.id']).limit(2).offset(sql<number>`${p.window} - 1`);
}
const scanSearch = (dialect: Dialect, column: ScopeColumn, after: boolean) =>
  new PreparedQuery<ScanParams, SubmissionListRow>((db, p) => scanQuery(db, dialect, column, p, after));
const windowEnd = (column: ScopeColumn, after: boolean) => new PreparedQuery<ScanParams, Keyset>((db, p) => windowEndQuery(db, column, p, after));

/** Searches of a form's or a workspace's listed submissions, at a cost that follows the caller's own rows. */
export class SubmissionSearch {
  private readonly scans: Record<ScopeColumn, { first: PreparedQuery<ScanParams, SubmissionListRow>; next: PreparedQuery<ScanParams, SubmissionListRow> }>;
  private readonly windowEnds: Record<ScopeColumn, { first: PreparedQuery<ScanParams, Keyset>; next: PreparedQuery<ScanParams, Keyset> }>;

  constructor(private readonly database: Database) {
    const { dialect } = database;
    this.scans = {
      formId: { first: scanSearch(dialect, 'formId', false), next: scanSearch(dialect, 'formId', true) },
      workspaceId: { first: scanSearch(dialect, 'workspaceId', false), next: scanSearch(dialect, 'workspaceId', true) },
    };
    this.windowEnds = {
      formId: { first: windowEnd('formId', false), next: windowEnd('formId', true) },
      workspaceId: { first: windowEnd('workspaceId', false), next: windowEnd('workspaceId', true) },
    };
  }

  /**
   * A page of a search, at a cost that follows the caller's own rows, never other tenants'
   * (issue 24). First the next RECENT_WINDOW rows of the list are checked one by one: a common term
   * fills its page among them, and when they are the rest of the list their matches are the whole
   * answer. A list of at most SEARCH_ROW_CAP more rows is checked one by one to its end. Only a longer
   * list asks the search index of its workspace or form; on SQLite, where that work holds the event
   * loop, when the index offers more than INDEX_CANDIDATE_CAP candidates (or the term has no word it
   * can use), the page checks SEARCH_ROW_CAP rows of the list one by one instead (see SEARCH_ROW_CAP).
   */
  async page(column: ScopeColumn, owner: string, page: PageRequest, filter: SubmissionFilter, search: string): Promise<Page<SubmissionListRow>> {
    const { dialect, db } = this.database;
    const recent = await this.scan(column, owner, page, filter, search, RECENT_WINDOW);
    if (recent.next === undefined) return recent;
    // the rest of the page's share of the list, from where the recent rows ended
    const rest = () =>
      this.scan(column, owner, { limit: page.limit - recent.rows.length, after: recent.next ?? null }, filter, search, SEARCH_ROW_CAP - RECENT_WINDOW);
    const joined = (more: Page<SubmissionListRow>): Page<SubmissionListRow> => ({ ...more, rows: [...recent.rows, ...more.rows] });
    if ((await this.rowsLeft(column, owner, page, filter)) <= SEARCH_ROW_CAP) return joined(await rest());
    let matches = dialect === 'postgres' ? postgresMatches(search) : null;
    const candidates = dialect === 'sqlite' ? indexCandidates(column, owner, search, INDEX_CANDIDATE_CAP) : null;
    if (candidates) {
      const seqs = (await candidates.execute(db)).rows.map((row) => Number(row.seq));
      if (seqs.length <= INDEX_CANDIDATE_CAP) matches = candidatesMatch(seqs, column, owner, search);
    }
    if (matches === null) return joined(await rest());
    const matching = db
      .selectFrom('submissions')
      .where(searchScope(dialect, column, owner))
      .where(matches);
    return keysetPage(narrowedBy(matching, filter).select(LIST_COLUMNS), page, 'submissions');
  }

  /** How many rows the list holds after the page's start, counting no further than SEARCH_ROW_CAP + 1 (its listing index answers). */
  private async rowsLeft(column: ScopeColumn, owner: string, page: PageRequest, filter: SubmissionFilter): Promise<number> {
    const listed = listedOf(this.database.db, column, owner).select('submissions.id');
    const left = newestAfter(narrowedBy(listed, filter), page.after, 'submissions').limit(SEARCH_ROW_CAP + 1);
    const counted = await this.database.db
      .selectFrom(left.as('left'))
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(counted.n);
  }

  /**
   * The matches among the next `window` rows of the list: a full page (hasMore, after its last row);
   * the rest of the list's matches when the window reached its end; or fewer than a page, with
   * `next` after the window's last row, when it did not.
   */
  private async scan(
    column: ScopeColumn,
    owner: string,
    page: PageRequest,
    filter: SubmissionFilter,
    search: string,
    window: number,
  ): Promise<Page<SubmissionListRow>> {
    const { dialect, db } = this.database;
    const params: ScanParams = {
      owner,
      pattern: searchPattern(dialect, search),
      window,
      limit: page.limit + 1,
      createdAt: page.after?.createdAt ?? 0,
      id: page.after?.id ?? '',
    };
    // the prepared statements serve the plain list; a time range or a triage view builds its own
    const narrowed = filter.from !== undefined || filter.to !== undefined || triaged(filter);
    const after = page.after !== null;
    const rows = narrowed
      ? await scanQuery(db, dialect, column, params, after, filter).execute()
      : await this.scans[column][after ? 'next' : 'first'].execute(db, params);
    if (rows.length > page.limit) return pageOf(rows, page.limit);
    // fewer than a page: did the window reach the end of the list? (its index answers, no row is read)
    const [end, beyond] = narrowed
      ? await windowEndQuery(db, column, params, after, filter).execute()
      : await this.windowEnds[column][after ? 'next' : 'first'].execute(db, params);
    if (!end || !beyond) return { rows, hasMore: false };
    return { rows, hasMore: true, next: { createdAt: Number(end.createdAt), id: end.id } };
  }
}
