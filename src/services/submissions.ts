import type { Config } from '../config/config.js';
import { fromJson, type Database, type Dialect, type Queryable } from '../db/database.js';
import { PreparedQuery } from '../db/prepared-query.js';
import { type SelectQueryBuilder, sql } from 'kysely';
import type { DB } from '../db/schema/index.js';
import type { SubmissionStatus } from '../db/schema/submission.js';
import { candidatesMatch, indexCandidates, postgresMatches, type SearchScopeColumn, searchPattern, searchScope, searchTextMatches } from '../db/search.js';
import { ProblemError, validationError } from '../errors.js';
import type { Access, FormService } from './forms.js';
import { type Keyset, keysetPage, newestAfter, pageOf, type Page, type PageRequest } from './pagination.js';
import { PLANS } from '../domain/plans.js';
import { isUpgraded } from './plans.js';
import { countHeld, type FolderRow, listFolder, markNotSpam, reasonsOf } from './quarantine.js';
import { requireUpgraded, type WorkspaceService } from './workspaces.js';

/** One submission as its own page shows it, whatever its status. */
export interface SubmissionDetail {
  id: string;
  formId: string;
  formName: string;
  workspaceId: string;
  /** The fields, parsed. */
  data: unknown;
  status: SubmissionStatus;
  /** Why spam was quarantined; empty otherwise. */
  spamReasons: string[];
  createdAt: number;
}

/** The most submissions one request deletes: the ids travel in a form and a query string. */
export const DELETE_LIMIT = 100;

/** What a listing returns of a submission. */
export interface SubmissionListRow {
  id: string;
  formId: string;
  data: unknown;
  createdAt: number;
}

export type SubmissionScope = { formId: string } | { workspaceId: string };

/** Which submissions a list shows: those whose fields contain `search`, that came from `from` (epoch ms, inclusive) until `to` (exclusive). */
export interface SubmissionFilter {
  search?: string;
  from?: number;
  to?: number;
}

/** Narrows a query of submissions to the filter's time range. */
function inRange<Q extends SelectQueryBuilder<DB, 'submissions', object>>(query: Q, { from, to }: SubmissionFilter): Q {
  let ranged = query;
  if (from !== undefined) ranged = ranged.where('submissions.createdAt', '>=', from) as Q;
  if (to !== undefined) ranged = ranged.where('submissions.createdAt', '<', to) as Q;
  return ranged;
}

const LIST_COLUMNS = ['submissions.id', 'submissions.formId', 'submissions.data', 'submissions.createdAt'] as const;

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

type ScopeColumn = SearchScopeColumn;

/** The listed (accepted) rows of one form or workspace: what every list and search starts from. */
function listedOf(db: Queryable, column: ScopeColumn, owner: string) {
  return db.selectFrom('submissions').where('submissions.status', '=', 'accepted').where(`submissions.${column}`, '=', owner);
}

// The plain listing of one form, page after page: the most frequent list, built once per shape. It
// carries its own access check (the caller is a member of the form's workspace and, through the API,
// it is upgraded), so that a page that has rows costs one query: on PostgreSQL each query is a round trip.
type FormPageParams = { formId: string; userId: string; limit: number; createdAt: number; id: string };
const UPGRADED_PLANS = PLANS.filter(isUpgraded);
const formPage = (after: boolean, api: boolean) =>
  new PreparedQuery<FormPageParams, SubmissionListRow>((db, p) => {
    const listed = db
      .selectFrom('submissions')
      .select(LIST_COLUMNS)
      .where('submissions.status', '=', 'accepted')
      .where('submissions.formId', '=', p.formId)
      .where(({ exists, selectFrom }) => {
        const member = selectFrom('forms')
          .innerJoin('workspaceMembers', 'workspaceMembers.workspaceId', 'forms.workspaceId')
          .innerJoin('workspaces', 'workspaces.id', 'forms.workspaceId')
          .select('forms.id')
          .where('forms.id', '=', p.formId)
          .where('workspaceMembers.userId', '=', p.userId);
        return exists(api ? member.where('workspaces.plan', 'in', UPGRADED_PLANS) : member);
      });
    return newestAfter(listed, after ? { createdAt: p.createdAt, id: p.id } : null, 'submissions').limit(p.limit);
  });

// A look at the next `window` rows of a form or workspace, each checked for the search pattern: the
// first `limit` matches (SQLite and PostgreSQL stop reading once they have them).
type ScanParams = { owner: string; pattern: string; window: number; limit: number; createdAt: number; id: string };
function listedAfter(db: Queryable, column: ScopeColumn, p: ScanParams, after: boolean, filter: SubmissionFilter) {
  return newestAfter(inRange(listedOf(db, column, p.owner), filter), after ? { createdAt: p.createdAt, id: p.id } : null, 'submissions');
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

export class SubmissionService {
  private readonly formPages = {
    api: { first: formPage(false, true), next: formPage(true, true) },
    dashboard: { first: formPage(false, false), next: formPage(true, false) },
  };
  private readonly scans: Record<ScopeColumn, { first: PreparedQuery<ScanParams, SubmissionListRow>; next: PreparedQuery<ScanParams, SubmissionListRow> }>;
  private readonly windowEnds: Record<ScopeColumn, { first: PreparedQuery<ScanParams, Keyset>; next: PreparedQuery<ScanParams, Keyset> }>;

  constructor(
    private readonly database: Database,
    private readonly workspaces: WorkspaceService,
    private readonly forms: FormService,
    /** Where the allowance notice's links lead (Not spam can send it); read at each use. */
    private readonly config: Pick<Config, 'publicUrl'>,
  ) {
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
   * Accepted submissions of a form or of a whole workspace, newest first, optionally only those
   * whose field names or values contain `search`, and only those that came in `[from, to)`. Spam,
   * held and deleted ones are never listed.
   */
  async listSubmissions(
    userId: string,
    scope: SubmissionScope,
    page: PageRequest,
    filter: SubmissionFilter = {},
    access: Access = {},
  ): Promise<Page<SubmissionListRow>> {
    const { search } = filter;
    const ranged = filter.from !== undefined || filter.to !== undefined;
    if (search === undefined && !ranged && 'formId' in scope) return this.formPage(userId, scope.formId, page, access);
    if ('formId' in scope) await this.forms.formForMember(userId, scope.formId, access);
    else {
      const workspace = await this.workspaces.getForMember(userId, scope.workspaceId);
      if (access.api) requireUpgraded(workspace);
    }

    const [column, value] = 'formId' in scope ? (['formId', scope.formId] as const) : (['workspaceId', scope.workspaceId] as const);
    if (search === undefined) {
      return keysetPage(inRange(listedOf(this.database.db, column, value), filter).select(LIST_COLUMNS), page, 'submissions');
    }
    return this.search(column, value, page, filter, search);
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
  private async search(column: ScopeColumn, owner: string, page: PageRequest, filter: SubmissionFilter, search: string): Promise<Page<SubmissionListRow>> {
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
    return keysetPage(inRange(matching, filter).select(LIST_COLUMNS), page, 'submissions');
  }

  /** How many rows the list holds after the page's start, counting no further than SEARCH_ROW_CAP + 1 (its listing index answers). */
  private async rowsLeft(column: ScopeColumn, owner: string, page: PageRequest, filter: SubmissionFilter): Promise<number> {
    const listed = listedOf(this.database.db, column, owner).select('submissions.id');
    const left = newestAfter(inRange(listed, filter), page.after, 'submissions').limit(SEARCH_ROW_CAP + 1);
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
    const ranged = filter.from !== undefined || filter.to !== undefined;
    const after = page.after !== null;
    const rows = ranged
      ? await scanQuery(db, dialect, column, params, after, filter).execute()
      : await this.scans[column][after ? 'next' : 'first'].execute(db, params);
    if (rows.length > page.limit) return pageOf(rows, page.limit);
    // fewer than a page: did the window reach the end of the list? (its index answers, no row is read)
    const [end, beyond] = ranged
      ? await windowEndQuery(db, column, params, after, filter).execute()
      : await this.windowEnds[column][after ? 'next' : 'first'].execute(db, params);
    if (!end || !beyond) return { rows, hasMore: false };
    return { rows, hasMore: true, next: { createdAt: Number(end.createdAt), id: end.id } };
  }

  private async formPage(userId: string, formId: string, page: PageRequest, access: Access): Promise<Page<SubmissionListRow>> {
    const queries = access.api ? this.formPages.api : this.formPages.dashboard;
    const query = page.after ? queries.next : queries.first;
    const rows = await query.execute(this.database.db, {
      formId,
      userId,
      limit: page.limit + 1,
      createdAt: page.after?.createdAt ?? 0,
      id: page.after?.id ?? '',
    });
    // no rows: an empty list, or no access; the full check tells them apart (404, 402)
    if (rows.length === 0) await this.forms.formForMember(userId, formId, access);
    return pageOf(rows, page.limit);
  }

  /** Deletes a submission for good; quarantined spam cannot be deleted early (`409 conflict`). */
  async deleteSubmission(userId: string, submissionId: string, access: Access = {}): Promise<void> {
    const submission = await this.database.db
      .selectFrom('submissions')
      .innerJoin('workspaceMembers', 'workspaceMembers.workspaceId', 'submissions.workspaceId')
      .innerJoin('workspaces', 'workspaces.id', 'submissions.workspaceId')
      .select(['submissions.id', 'submissions.status', 'submissions.workspaceId', 'workspaces.plan'])
      .where('submissions.id', '=', submissionId)
      .where('workspaceMembers.userId', '=', userId)
      .executeTakeFirst();
    if (!submission) throw new ProblemError('not_found', `Submission ${submissionId} was not found.`);
    if (access.api) requireUpgraded({ id: submission.workspaceId, plan: submission.plan });
    if (submission.status === 'spam') {
      throw new ProblemError('conflict', 'This submission is quarantined as spam; it is removed on its own when the retention period ends.');
    }
    await this.database.db.deleteFrom('submissions').where('id', '=', submissionId).execute();
  }

  /** A submission of a workspace the account belongs to, whatever its status; `not_found` otherwise. */
  async getSubmission(userId: string, submissionId: string): Promise<SubmissionDetail> {
    const [found] = await this.submissionsForMember(userId, [submissionId]);
    if (!found) throw new ProblemError('not_found', `Submission ${submissionId} was not found.`);
    return found;
  }

  /**
   * Submissions by id, newest first, for a confirmation that names them: all of them of workspaces
   * the account belongs to, else `not_found` naming the first that is not.
   */
  async submissionsForMember(userId: string, ids: string[]): Promise<SubmissionDetail[]> {
    const wanted = [...new Set(ids)];
    if (wanted.length === 0) return [];
    if (wanted.length > DELETE_LIMIT) throw tooMany();
    const rows = await this.database.db
      .selectFrom('submissions')
      .innerJoin('workspaceMembers', 'workspaceMembers.workspaceId', 'submissions.workspaceId')
      .innerJoin('forms', 'forms.id', 'submissions.formId')
      .select(['submissions.id', 'submissions.formId', 'forms.name as formName', 'submissions.workspaceId'])
      .select(['submissions.data', 'submissions.status', 'submissions.spamReasons', 'submissions.createdAt'])
      .where('submissions.id', 'in', wanted)
      .where('workspaceMembers.userId', '=', userId)
      .orderBy('submissions.createdAt', 'desc')
      .orderBy('submissions.id', 'desc')
      .execute();
    const missing = wanted.find((id) => !rows.some((row) => row.id === id));
    if (missing !== undefined) throw new ProblemError('not_found', `Submission ${missing} was not found.`);
    return rows.map((row) => ({ ...row, data: fromJson(row.data), spamReasons: reasonsOf(row.spamReasons) }));
  }

  /**
   * Deletes several submissions for good, all or none, in one transaction: every id must be a
   * submission of a workspace the account belongs to (else `not_found`, naming the first that is
   * not), and none may be quarantined spam (`409`, as for one). At most DELETE_LIMIT at once.
   */
  async deleteSubmissions(userId: string, ids: string[]): Promise<number> {
    const wanted = [...new Set(ids)];
    if (wanted.length === 0) throw validationError(['ids: choose at least one submission'], 'No submission was chosen.');
    if (wanted.length > DELETE_LIMIT) throw tooMany();
    return this.database.transaction(async (trx) => {
      const found = await trx
        .selectFrom('submissions')
        .innerJoin('workspaceMembers', 'workspaceMembers.workspaceId', 'submissions.workspaceId')
        .select(['submissions.id', 'submissions.status'])
        .where('submissions.id', 'in', wanted)
        .where('workspaceMembers.userId', '=', userId)
        .execute();
      const missing = wanted.find((id) => !found.some((row) => row.id === id));
      if (missing !== undefined) throw new ProblemError('not_found', `Submission ${missing} was not found.`);
      if (found.some((row) => row.status === 'spam')) {
        throw new ProblemError('conflict', 'This submission is quarantined as spam; it is removed on its own when the retention period ends.');
      }
      const deleted = await trx.deleteFrom('submissions').where('id', 'in', wanted).executeTakeFirst();
      return Number(deleted.numDeletedRows);
    });
  }

  /** A form's spam folder or its held submissions, newest first (member-checked). */
  async listFolder(userId: string, formId: string, status: 'spam' | 'held', page: PageRequest): Promise<Page<FolderRow>> {
    await this.forms.formForMember(userId, formId);
    return listFolder(this.database, formId, status, page);
  }

  /** How many of a form's submissions wait past the allowance (member-checked). */
  async countHeld(userId: string, formId: string): Promise<number> {
    await this.forms.formForMember(userId, formId);
    return countHeld(this.database, formId);
  }

  /** "Not spam" (quarantine.ts): into the inbox, counted against the allowance, delivered when accepted. */
  markNotSpam(userId: string, submissionId: string): Promise<{ status: 'accepted' | 'held'; formId: string }> {
    return markNotSpam(this.database, this.config, userId, submissionId);
  }

  /** The names of a workspace's forms among `formIds` (a workspace-wide list names each row's form). */
  async formNames(userId: string, workspaceId: string, formIds: string[]): Promise<Map<string, string>> {
    await this.workspaces.getForMember(userId, workspaceId);
    if (formIds.length === 0) return new Map();
    const forms = await this.database.db
      .selectFrom('forms')
      .select(['id', 'name'])
      .where('workspaceId', '=', workspaceId)
      .where('id', 'in', [...new Set(formIds)])
      .execute();
    return new Map(forms.map((form) => [form.id, form.name]));
  }

  /** Removes quarantined spam older than the retention period; returns how many went. */
  async purgeExpiredSpam(retentionMs: number, now = Date.now()): Promise<number> {
    const result = await this.database.db
      .deleteFrom('submissions')
      // a literal, so the partial index of spam (migration 0007) serves it
      .where('status', '=', sql.lit('spam'))
      .where('createdAt', '<', now - retentionMs)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

function tooMany(): ProblemError {
  return validationError([`ids: at most ${DELETE_LIMIT} submissions can be deleted at once`], `At most ${DELETE_LIMIT} submissions can be deleted at once.`);
}

/**
 * The Submission resource of 2.4 as JSON text. `data` goes out as stored: both databases keep the JSON
 * text they were given (JSON.stringify's own output; `json` on PostgreSQL). Parsing every row's
 * fields only to serialise them again was the largest cost of a list page.
 */
export function submissionJson(row: SubmissionListRow): string {
  const data = typeof row.data === 'string' ? row.data : JSON.stringify(row.data);
  return `{"id":${JSON.stringify(row.id)},"formId":${JSON.stringify(row.formId)},"data":${data},"createdAt":"${new Date(row.createdAt).toISOString()}"}`;
}
