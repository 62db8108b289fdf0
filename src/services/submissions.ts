import type { Config } from '../config/config.js';
import { fromJson, type Database, type Queryable } from '../db/database.js';
import { PreparedQuery } from '../db/prepared-query.js';
import { releaseFiles, removeReleasedFiles } from '../db/submission-deletion.js';
import { deletedEventJobs } from '../jobs/hook-jobs.js';
import { enqueueJobs } from '../jobs/outbox.js';
import type { FileStore } from '../files/file-store.js';
import { sql } from 'kysely';
import type { SubmissionStatus } from '../db/schema/submission.js';
import { ProblemError, validationError } from '../errors.js';
import { LIST_COLUMNS, listedOf, narrowedBy, type SubmissionFilter, type SubmissionListRow, SubmissionSearch, triaged } from './submission-search.js';
import type { Access, FormService } from './forms.js';
import { keysetPage, newestAfter, pageOf, pageParams, type Page, type PageRequest } from './pagination.js';
import { PLANS, isUpgraded } from '../domain/plans.js';
import { LoopSlice } from '../domain/loop-slice.js';
import {
  countHeld,
  type FolderRow,
  forgetSpamDays,
  listFolder,
  markNotSpam,
  type NotSpamOutcome,
  reasonsOf,
  type SpamFolderState,
  spamFolderState,
  uncountDeletedSpam,
} from './quarantine.js';
import { countSpam, lockWorkspacesOf, searchSpam, spamIdsOf } from './spam-folder.js';
import { requireUpgraded, type WorkspaceService } from './workspaces.js';
import type { AuditLog } from './audit-log.js';

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

/** Expired spam deleted per transaction: each purge step is short, never one long one. */
// NOTE: a batch is the least the purge holds the event loop for on SQLite: 1,000 took about 20 ms of CPU (issue 38)
const SPAM_PURGE_BATCH = 250;

/** The most submissions one request deletes: the ids travel in a form and a query string. */
export const DELETE_LIMIT = 100;

export type SubmissionScope = { formId: string } | { workspaceId: string };

// The plain listing of one form, page after page: the most frequent list, built once per shape. It
// carries its own access check (the caller is a member of the form's workspace and, through the API,
// it is upgraded), so that a page that has rows costs one query: on PostgreSQL each query is a round trip.
const UPGRADED_PLANS = PLANS.filter(isUpgraded);
type FormPageParams = { formId: string; userId: string; limit: number; createdAt: number; id: string };
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

type OpenPageParams = { owner: string; userId: string; limit: number; createdAt: number; id: string };

// The inbox's default view, a page of a form's or a workspace's open submissions (issue 41), on every
// visit: built once, prepared once per PostgreSQL connection, the membership check in the same
// statement. `status` a literal and `done_at IS NULL` as written: what the partial indexes of open
// submissions name (migration 0032), whatever plan PostgreSQL keeps for the statement.
const openPage = (column: 'formId' | 'workspaceId', after: boolean) =>
  new PreparedQuery<OpenPageParams, SubmissionListRow>((db, p) => {
    const listed = db
      .selectFrom('submissions')
      .select(LIST_COLUMNS)
      .where('submissions.status', '=', sql.lit('accepted'))
      .where(`submissions.${column}`, '=', p.owner)
      .where('submissions.doneAt', 'is', null)
      .where(({ exists, selectFrom }) =>
        exists(
          column === 'formId'
            ? selectFrom('forms')
                .innerJoin('workspaceMembers', 'workspaceMembers.workspaceId', 'forms.workspaceId')
                .select('forms.id')
                .where('forms.id', '=', p.owner)
                .where('workspaceMembers.userId', '=', p.userId)
            : selectFrom('workspaceMembers')
                .select('workspaceMembers.userId')
                .where('workspaceMembers.workspaceId', '=', p.owner)
                .where('workspaceMembers.userId', '=', p.userId),
        ),
      );
    return newestAfter(listed, after ? { createdAt: p.createdAt, id: p.id } : null, 'submissions').limit(p.limit);
  });

/** Whether a filter is the inbox's default view and nothing else: open ones, no search, dates or other narrowing. */
const onlyOpen = (filter: SubmissionFilter) =>
  filter.state === 'open' && Object.keys(filter).every((key) => key === 'state' || filter[key as keyof SubmissionFilter] === undefined);

export class SubmissionService {
  private readonly openPages = {
    formId: { first: openPage('formId', false), next: openPage('formId', true) },
    workspaceId: { first: openPage('workspaceId', false), next: openPage('workspaceId', true) },
  };
  private readonly formPages = {
    api: { first: formPage(false, true), next: formPage(true, true) },
    dashboard: { first: formPage(false, false), next: formPage(true, false) },
  };
  private readonly searches: SubmissionSearch;

  constructor(
    private readonly database: Database,
    private readonly workspaces: WorkspaceService,
    private readonly forms: FormService,
    /** Where the allowance notice's links lead (Not spam can send it); read at each use. */
    private readonly config: Pick<Config, 'publicUrl'>,
    private readonly audit: AuditLog,
    /** Where deleted submissions' files are removed; without it, the sweep removes them. */
    private readonly files: FileStore | null = null,
  ) {
    this.searches = new SubmissionSearch(database);
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
    if (search === undefined && !ranged && !triaged(filter) && 'formId' in scope) return this.formPage(userId, scope.formId, page, access);
    if (onlyOpen(filter) && !access.api) return this.openPage(userId, scope, page);
    if ('formId' in scope) await this.forms.formForMember(userId, scope.formId, access);
    else {
      const workspace = await this.workspaces.getForMember(userId, scope.workspaceId);
      if (access.api) requireUpgraded(workspace, this.workspaces.plans);
    }

    const [column, value] = 'formId' in scope ? (['formId', scope.formId] as const) : (['workspaceId', scope.workspaceId] as const);
    if (search === undefined) {
      return keysetPage(narrowedBy(listedOf(this.database.db, column, value), filter).select(LIST_COLUMNS), page, 'submissions');
    }
    return this.searches.page(column, value, page, filter, search);
  }

  private async formPage(userId: string, formId: string, page: PageRequest, access: Access): Promise<Page<SubmissionListRow>> {
    // team mode: every workspace has the API, so membership alone is the check
    const queries = access.api && !this.workspaces.plans.team ? this.formPages.api : this.formPages.dashboard;
    const query = page.after ? queries.next : queries.first;
    const rows = await query.execute(this.database.db, { formId, userId, ...pageParams(page) });
    // no rows: an empty list, or no access; the full check tells them apart (404, 402)
    if (rows.length === 0) await this.forms.formForMember(userId, formId, access);
    return pageOf(rows, page.limit);
  }

  /** The dashboard's Open view: one prepared statement; no rows, and the full check tells an empty list from no access (404). */
  private async openPage(userId: string, scope: SubmissionScope, page: PageRequest): Promise<Page<SubmissionListRow>> {
    const [column, owner] = 'formId' in scope ? (['formId', scope.formId] as const) : (['workspaceId', scope.workspaceId] as const);
    const query = page.after ? this.openPages[column].next : this.openPages[column].first;
    const rows = await query.execute(this.database.db, { owner, userId, ...pageParams(page) });
    if (rows.length === 0) {
      if (column === 'formId') await this.forms.formForMember(userId, owner);
      else await this.workspaces.getForMember(userId, owner);
    }
    return pageOf(rows, page.limit);
  }

  /** Deletes a submission for good; quarantined spam cannot be deleted early (`409 conflict`). */
  async deleteSubmission(userId: string, submissionId: string, access: Access = {}): Promise<void> {
    const submission = await this.database.db
      .selectFrom('submissions')
      .innerJoin('workspaceMembers', 'workspaceMembers.workspaceId', 'submissions.workspaceId')
      .innerJoin('workspaces', 'workspaces.id', 'submissions.workspaceId')
      .select(['submissions.id', 'submissions.formId', 'submissions.status', 'submissions.workspaceId', 'workspaces.plan'])
      .where('submissions.id', '=', submissionId)
      .where('workspaceMembers.userId', '=', userId)
      .executeTakeFirst();
    if (!submission) throw new ProblemError('not_found', `Submission ${submissionId} was not found.`);
    if (access.api) requireUpgraded({ id: submission.workspaceId, plan: submission.plan }, this.workspaces.plans);
    if (submission.status === 'spam') {
      throw new ProblemError('conflict', 'This submission is quarantined as spam; it is removed on its own when the retention period ends.');
    }
    const released = await this.database.transaction(async (trx) => {
      const keys = await releaseFiles(trx, { submissionIds: [submissionId] }, Date.now());
      await enqueueJobs(trx, await deletedEventJobs(trx, [submission]));
      await trx.deleteFrom('submissions').where('id', '=', submissionId).execute();
      await this.audit.record(
        {
          action: 'submissions.deleted',
          workspaceId: submission.workspaceId,
          target: { kind: 'submission', id: submissionId },
          details: { count: 1, formIds: [submission.formId] },
        },
        trx,
      );
      return keys;
    });
    await removeReleasedFiles(this.database, this.files, released);
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
   * not), and none may be quarantined spam (`409`, as for one) unless `spam` allows it: the
   * dashboard's Delete, a member's choice (docs/decisions.md, "Deleting spam from the dashboard");
   * the API's DELETE keeps its 409. At most DELETE_LIMIT at once.
   */
  async deleteSubmissions(userId: string, ids: string[], options: { spam?: boolean } = {}): Promise<number> {
    const wanted = [...new Set(ids)];
    if (wanted.length === 0) throw validationError(['ids: choose at least one submission'], 'No submission was chosen.');
    if (wanted.length > DELETE_LIMIT) throw tooMany();
    const { deleted, released } = await this.database.transaction(async (trx) => {
      // spam leaves its folder's bound: its workspace is locked first, as Not spam locks it
      if (options.spam) await lockWorkspacesOf(trx, userId, wanted);
      const found = await trx
        .selectFrom('submissions')
        .innerJoin('workspaceMembers', 'workspaceMembers.workspaceId', 'submissions.workspaceId')
        .select(['submissions.id', 'submissions.formId', 'submissions.status', 'submissions.workspaceId'])
        .where('submissions.id', 'in', wanted)
        .where('workspaceMembers.userId', '=', userId)
        .execute();
      const missing = wanted.find((id) => !found.some((row) => row.id === id));
      if (missing !== undefined) throw new ProblemError('not_found', `Submission ${missing} was not found.`);
      const spam = found.filter((row) => row.status === 'spam').map((row) => row.id);
      if (spam.length > 0 && !options.spam) {
        throw new ProblemError('conflict', 'This submission is quarantined as spam; it is removed on its own when the retention period ends.');
      }
      await uncountDeletedSpam(trx, spam);
      const released = await releaseFiles(trx, { submissionIds: wanted }, Date.now());
      await enqueueJobs(trx, await deletedEventJobs(trx, found));
      const result = await trx.deleteFrom('submissions').where('id', 'in', wanted).executeTakeFirst();
      await this.recordDeletions(trx, found);
      return { deleted: Number(result.numDeletedRows), released };
    });
    await removeReleasedFiles(this.database, this.files, released);
    return deleted;
  }

  /** One audit event per workspace of the submissions deleted at once: their ids and forms, never their fields. */
  private async recordDeletions(trx: Queryable, deleted: { id: string; formId: string; workspaceId: string; status: string }[]): Promise<void> {
    for (const workspaceId of new Set(deleted.map((row) => row.workspaceId))) {
      const rows = deleted.filter((row) => row.workspaceId === workspaceId);
      const details = {
        count: rows.length,
        ids: rows.map((row) => row.id),
        formIds: [...new Set(rows.map((row) => row.formId))],
        spam: rows.filter((row) => row.status === 'spam').length,
      };
      await this.audit.record(
        { action: 'submissions.deleted', workspaceId, target: rows.length === 1 ? { kind: 'submission', id: rows[0]!.id } : undefined, details },
        trx,
      );
    }
  }

  /** A form's spam folder or its held submissions, newest first (member-checked). */
  async listFolder(userId: string, formId: string, status: 'spam' | 'held', page: PageRequest): Promise<Page<FolderRow>> {
    await this.forms.formForMember(userId, formId);
    return listFolder(this.database, formId, status, page);
  }

  /** A page of a form's spam folder whose fields contain `search`, checking a bounded share of it per page (spam-folder.ts; member-checked). */
  async searchSpam(userId: string, formId: string, page: PageRequest, search: string): Promise<Page<FolderRow>> {
    await this.forms.formForMember(userId, formId);
    return searchSpam(this.database, formId, page, search);
  }

  /** How many of a form's submissions are spam, up to SPAM_COUNT_CAP (the caller checked membership: a form's page frame). */
  countSpam(formId: string): Promise<number> {
    return countSpam(this.database, formId);
  }

  /** The chosen ids if every one is spam of this form of the account's workspace (oldest first); `not_found` naming the first that is not. */
  spamIdsOf(userId: string, formId: string, ids: string[]): Promise<string[]> {
    return spamIdsOf(this.database, userId, formId, ids);
  }

  /** The spam folder of a form's workspace: how full it is against its bound, and the spam dropped past it (member-checked). */
  async spamFolder(userId: string, formId: string, retentionMs: number): Promise<SpamFolderState> {
    const form = await this.forms.formForMember(userId, formId);
    return spamFolderState(this.database, { id: form.workspaceId, plan: form.plan }, retentionMs, this.workspaces.plans);
  }

  /** Forgets the days of spam past the retention (the hourly spam purge): the spam folder's bound no longer counts them. */
  forgetSpamDays(retentionMs: number): Promise<number> {
    return forgetSpamDays(this.database, retentionMs);
  }

  /** How many of a form's submissions wait past the allowance (member-checked). */
  async countHeld(userId: string, formId: string): Promise<number> {
    await this.forms.formForMember(userId, formId);
    return countHeld(this.database, formId);
  }

  /** "Not spam" (quarantine.ts): into the inbox, counted against the allowance and delivered when accepted, unless it was in the inbox before (then only back). */
  markNotSpam(userId: string, submissionId: string): Promise<NotSpamOutcome> {
    return markNotSpam(this.database, this.config, userId, submissionId, this.workspaces.plans);
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

  /**
   * Removes quarantined spam older than the retention period, with its files, SPAM_PURGE_BATCH at
   * a time in a transaction each; returns how many went. On PostgreSQL each batch skips the rows
   * another instance's purge holds.
   */
  async purgeExpiredSpam(retentionMs: number, now = Date.now()): Promise<number> {
    let purged = 0;
    // between batches the event loop is given back once the purge has had its slice
    const slice = new LoopSlice();
    for (;;) {
      await slice.yieldIfDue();
      const batch = await this.database.transaction(async (trx) => {
        const expired = trx
          .selectFrom('submissions')
          .select('id')
          // a literal, so the partial index of spam (migration 0007) serves it
          .where('status', '=', sql.lit('spam'))
          .where('createdAt', '<', now - retentionMs)
          .limit(SPAM_PURGE_BATCH);
        const ids = (await (this.database.dialect === 'postgres' ? expired.forUpdate().skipLocked() : expired).execute()).map((row) => row.id);
        if (ids.length === 0) return { found: 0, deleted: 0, released: [] as string[] };
        const released = await releaseFiles(trx, { submissionIds: ids }, now);
        const result = await trx.deleteFrom('submissions').where('id', 'in', ids).executeTakeFirst();
        return { found: ids.length, deleted: Number(result.numDeletedRows), released };
      });
      await removeReleasedFiles(this.database, this.files, batch.released);
      purged += batch.deleted;
      if (batch.found < SPAM_PURGE_BATCH) return purged;
    }
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

/** A listed submission's fields, parsed from either dialect's JSON column: what a page shows. */
export function submissionFields(row: Pick<SubmissionListRow, 'data'>): unknown {
  return fromJson(row.data);
}
