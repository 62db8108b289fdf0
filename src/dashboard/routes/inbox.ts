import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import type { CursorCodec } from '../../web/pagination.js';
import type { SearchLimits } from '../../web/search-limits.js';
import { type Keyset, nextOf, type Page } from '../../services/pagination.js';
import { submissionFields } from '../../services/submissions.js';
import { type FilterValues, filterQuery, readFilter } from '../date-range.js';
import { formFrame } from '../form-frame.js';
import { workspaceFrame } from '../frame.js';
import { seeOther, sendPage } from '../render.js';
import { accountOf, requireAccount } from '../session.js';
import { setFlash } from '../flash.js';
import { problemText } from './submission.js';
import type { MarkScope } from '../../services/submission-marks.js';
import { ProblemError } from '../../errors.js';
import { FormInboxPage, type InboxRow, type Pager, WorkspaceInboxPage } from '../views/inbox-page.js';
import { readTriageView, viewParams } from '../triage-view.js';
import { withQuery } from '../links.js';
import { type BulkTicks, bulkTicks } from '../bulk-ticks.js';
import { loadPane, paneIdOf, paneLinks, paneUrl } from '../reading-pane.js';
import { type SavedViewLink, savedViewLinks, viewQuery } from '../saved-view-links.js';
import type { ReadingPaneData, ReadingPaneProps } from '../views/reading-pane.js';
import type { Frame } from '../views/layout.js';
import type { Label } from '../../domain/labels.js';

/** The workspace inbox's Form filter offers the newest this many forms (a form's own inbox is a link away). */
const FORM_CHOICES = 100;

/** Rows a page of the inbox shows: one line each, so a page is a few screens at most. */
export const INBOX_PAGE_SIZE = 50;

type Query = { Querystring: Record<string, unknown> };

/** The form's inbox and the workspace's: accepted submissions, newest first, filtered and paged by the API's cursors. */
export function registerInboxRoutes(app: FastifyInstance, ctx: AppContext, searchLimits: SearchLimits): void {
  /** A list with a search counts against the session's and the address's search limits (429 page past them). */
  const countSearch = (request: FastifyRequest, reply: FastifyReply, filter: { search?: string }) =>
    filter.search === undefined ? undefined : searchLimits.take(sessionKey(request), request.ip, reply);

  app.get<{ Params: { formId: string } } & Query>('/forms/:formId', { preHandler: requireAccount }, async (request, reply) => {
    const { formId } = request.params;
    const { frame, form } = await formFrame(request, reply, ctx, formId);
    const userId = accountOf(request).user.id;
    const list = listOf(request, ctx.cursors, `submissions:form:${formId}`, userId);
    await countSearch(request, reply, list.filter);
    // the reading pane first: opening it marks it read, and its line in the list shows that
    const opened = list.paneId === null ? null : await loadPane(ctx, userId, list.paneId, { formId });
    if (opened === 'moved') return seeOther(reply, `/submissions/${list.paneId}`);
    const path = `/forms/${formId}`;
    const inbox = { path, formId, scope: { formId }, shown: shownView(list) };
    const [page, held, days, { open, mine }, assignees, labels, saved] = await Promise.all([
      ctx.submissions.listSubmissions(userId, { formId }, list.page, list.filter),
      ctx.submissions.countHeld(userId, formId),
      ctx.stats.formDays(userId, formId),
      ctx.triage.openCounts({ formId }, userId),
      ctx.triage.assignees(userId, form.workspaceId),
      ctx.labels.list(userId, form.workspaceId),
      savedViewLinks(ctx, userId, form.workspaceId, inbox),
    ]);
    const shown = pageProps(ctx.cursors, list, page, path);
    await markRows(ctx, shown.rows);
    const triage = {
      view: list.view,
      open,
      mine,
      assignees,
      userId,
      labels,
      labelsPath: `/w/${form.workspaceId}/labels`,
      saved: savedProps(inbox, saved, form.workspaceId),
    };
    const pane = opened && paneProps(opened, shown, { frame, assignees, labels, showForm: false });
    return sendPage(reply, FormInboxPage({ frame, form, held, days, triage, ...shown, pane, exportPath: `${path}/export` }), list.status);
  });

  app.get<{ Params: { workspaceId: string } } & Query>('/w/:workspaceId/submissions', { preHandler: requireAccount }, async (request, reply) => {
    const { workspaceId } = request.params;
    const { frame } = await workspaceFrame(request, reply, ctx, workspaceId, 'forms');
    const userId = accountOf(request).user.id;
    const list = listOf(request, ctx.cursors, `submissions:workspace:${workspaceId}`, userId);
    await countSearch(request, reply, list.filter);
    const opened = list.paneId === null ? null : await loadPane(ctx, userId, list.paneId, { workspaceId });
    if (opened === 'moved') return seeOther(reply, `/submissions/${list.paneId}`);
    // the Form filter (issue 41, item 8): a form of this workspace, else the 404 page, as another workspace's label is
    const onlyForm = list.view.form;
    if (onlyForm && !(await ctx.submissions.formNames(userId, workspaceId, [onlyForm])).has(onlyForm)) {
      throw new ProblemError('not_found', `Form ${onlyForm} was not found.`);
    }
    const path = `/w/${workspaceId}/submissions`;
    const inbox = { path, formId: null, scope: { workspaceId }, shown: shownView(list) };
    const [page, { open, mine }, assignees, labels, saved, forms] = await Promise.all([
      ctx.submissions.listSubmissions(userId, onlyForm ? { formId: onlyForm } : { workspaceId }, list.page, list.filter),
      ctx.triage.openCounts({ workspaceId }, userId),
      ctx.triage.assignees(userId, workspaceId),
      ctx.labels.list(userId, workspaceId),
      savedViewLinks(ctx, userId, workspaceId, inbox),
      ctx.forms.listForms(userId, workspaceId, { limit: FORM_CHOICES, after: null }).then((listed) => listed.rows.map(({ id, name }) => ({ id, name }))),
    ]);
    const formNames = await ctx.submissions.formNames(
      userId,
      workspaceId,
      page.rows.map((row) => row.formId),
    );
    const shown = pageProps(ctx.cursors, list, page, path);
    await markRows(ctx, shown.rows);
    const saving = savedProps(inbox, saved, workspaceId);
    const triage = { view: list.view, open, mine, assignees, userId, labels, labelsPath: `/w/${workspaceId}/labels`, forms, saved: saving };
    const pane = opened && paneProps(opened, shown, { frame, assignees, labels, showForm: true });
    return sendPage(reply, WorkspaceInboxPage({ frame, workspaceId, formNames, triage, ...shown, pane, exportPath: `/w/${workspaceId}/export` }), list.status);
  });

  // The inbox's bulk actions on the ticked rows of a page: every id must be an accepted submission of this form (or
  // workspace), else nothing changes. Delete leads to the confirmation the single delete uses.
  app.post<{ Params: { formId: string }; Body: BulkBody }>('/forms/:formId/bulk', { preHandler: requireAccount }, (request, reply) =>
    bulk(ctx, request, reply, { formId: request.params.formId }, `/forms/${request.params.formId}`),
  );
  app.post<{ Params: { workspaceId: string }; Body: BulkBody }>('/w/:workspaceId/submissions/bulk', { preHandler: requireAccount }, (request, reply) =>
    bulk(ctx, request, reply, { workspaceId: request.params.workspaceId }, `/w/${request.params.workspaceId}/submissions`),
  );
}

type BulkBody = BulkTicks & { assignee?: unknown; label?: unknown };

async function bulk(ctx: AppContext, request: FastifyRequest<{ Body: BulkBody }>, reply: FastifyReply, scope: MarkScope, list: string) {
  const { user } = accountOf(request);
  const { ids, back } = bulkTicks(request.body, list);
  const action = request.body?.action;
  if (ids.length === 0) {
    setFlash(reply, 'Nothing changed: tick the submissions first.');
    return seeOther(reply, back);
  }
  try {
    if (action === 'delete') {
      await ctx.submissionMarks.checkInbox(user.id, scope, ids);
      const query = new URLSearchParams([...ids.map((id) => ['id', id]), ['back', back]]);
      return seeOther(reply, `/submissions/delete?${query}`);
    }
    if (action === 'read' || action === 'unread') {
      // `unread` has no button: the inbox's `u` key sends it (assets/inbox-keys.js)
      const n = await ctx.submissionMarks.markAllRead(user.id, scope, ids, action === 'unread');
      setFlash(reply, `${n === 1 ? '1 submission' : `${n} submissions`} marked as ${action}`);
    } else if (action === 'spam') {
      const n = await ctx.submissionMarks.markSpam(user.id, user.email, scope, ids);
      setFlash(reply, n === 1 ? '1 submission moved to the spam folder' : `${n} submissions moved to the spam folder`);
    } else if (action === 'done' || action === 'reopen') {
      const n = await ctx.triage.updateMany(user, scope, ids, { status: action === 'done' ? 'done' : 'open' });
      const what = action === 'done' ? 'marked as done' : 'reopened';
      setFlash(reply, n === 1 ? `1 submission ${what}` : `${n} submissions ${what}`);
    } else if (action === 'assign') {
      const assignee = typeof request.body?.assignee === 'string' ? request.body.assignee : '';
      const n = await ctx.triage.updateMany(user, scope, ids, { assigneeId: assignee === '' ? null : assignee });
      setFlash(reply, `${n === 1 ? '1 submission' : `${n} submissions`} ${assignee === '' ? 'assigned to nobody' : 'assigned'}`);
    } else if ((action === 'label-add' || action === 'label-remove') && typeof request.body?.label === 'string') {
      const add = action === 'label-add';
      const n = await ctx.labels.applyMany(user.id, scope, ids, request.body.label, add);
      setFlash(reply, `Label ${add ? 'added to' : 'removed from'} ${n === 1 ? '1 submission' : `${n} submissions`}`);
    } else {
      setFlash(reply, 'Nothing changed: choose one of the actions.');
    }
  } catch (error) {
    // an id of another form or workspace, or none at all, is the 404 page, as it would be alone
    if (error instanceof ProblemError && error.code === 'not_found') throw error;
    setFlash(reply, `Nothing changed: ${problemText(error)}`);
  }
  return seeOther(reply, back);
}

/** Marks the rows with their stored files' count, unread flag, note, triage and labels (two queries for the page). */
async function markRows(ctx: AppContext, rows: InboxRow[]): Promise<void> {
  if (rows.length === 0) return;
  const ids = rows.map((row) => row.id);
  const [marks, labels] = await Promise.all([ctx.submissionMarks.marksOf(ids), ctx.labels.labelsOf(ids)]);
  for (const row of rows) {
    row.files = marks.get(row.id)?.files ?? 0;
    row.unread = marks.get(row.id)?.unread ?? false;
    row.note = marks.get(row.id)?.note ?? null;
    row.done = marks.get(row.id)?.done ?? false;
    row.assigneeId = marks.get(row.id)?.assigneeId ?? null;
    row.labels = labels.get(row.id) ?? [];
  }
}

/** What the address asks of a list: its filter (bad fields answered 400, beside the field) and its page. */
function listOf(request: FastifyRequest<Query>, cursors: CursorCodec, name: string, userId: string) {
  const { values, filter: fields, errors } = readFilter(request.query);
  const { view, filter: triage } = readTriageView(request.query, userId);
  const filter = { ...fields, ...triage };
  const cursor = typeof request.query.cursor === 'string' && request.query.cursor !== '' ? request.query.cursor : null;
  // a cursor not issued for this list (edited, or another list's) is the error page's 400
  const after = cursor === null ? null : cursors.decode(name, cursor);
  const status = Object.keys(errors).length > 0 ? 400 : 200;
  return { name, values, view, filter, errors, cursor, status, page: { limit: INBOX_PAGE_SIZE, after }, paneId: paneIdOf(request.query) };
}

/** The rows, paging links and filter of a page of `path`. */
function pageProps(
  cursors: CursorCodec,
  list: ReturnType<typeof listOf>,
  page: Page<{ id: string; formId: string; data: unknown; createdAt: number }>,
  path: string,
) {
  const good = goodValues(list.values, list.errors);
  // the links keep the view too; the exports take the fields' filter only (every submission it keeps, open or done)
  const kept = { ...good, ...viewParams(list.view) };
  const rows: InboxRow[] = page.rows.map((row) => ({ ...row, data: submissionFields(row) }));
  const back = withQuery(path, { ...kept, ...(list.cursor ? { cursor: list.cursor } : {}) });
  return {
    rows,
    values: list.values,
    errors: list.errors,
    pager: pagerOf(cursors, list.name, path, kept, nextOf(page) ?? undefined, list.cursor !== null),
    back,
    // each line opens its submission in the reading pane, this page of the list beside it
    linkOf: (id: string) => paneUrl(back, id),
    current: list.paneId,
    exportQuery: filterQuery(good),
  };
}

/** The view an inbox's address shows, as saved views spell theirs: what Save view saves, and how the shown one is found among them. */
function shownView(list: ReturnType<typeof listOf>): string {
  return viewQuery({ ...goodValues(list.values, list.errors), ...viewParams(list.view) });
}

/** The inbox's saved views, and what Save view posts (the view shown, and the form of a form's inbox). */
function savedProps(inbox: { formId: string | null; shown: string }, links: SavedViewLink[], workspaceId: string) {
  return { links, action: `/w/${workspaceId}/views`, formId: inbox.formId ?? '', query: inbox.shown };
}

/** The reading pane's props: the opened submission, where its changes lead, and its neighbours on this page. */
function paneProps(
  opened: ReadingPaneData,
  shown: ReturnType<typeof pageProps>,
  inbox: { frame: Frame; assignees: { id: string; email: string }[]; labels: Label[]; showForm: boolean },
): ReadingPaneProps {
  const place = paneLinks(
    shown.back,
    shown.rows.map((row) => row.id),
    opened.submission.id,
  );
  const { frame, ...rest } = inbox;
  return { ...opened, ...rest, ...place, csrf: frame.csrf, team: frame.plans.team };
}

/** The filter values that were read without a problem: those the links carry on. */
export function goodValues(values: FilterValues, errors: Record<string, string>): FilterValues {
  return { search: values.search, from: errors.from ? '' : values.from, to: errors.to ? '' : values.to };
}

/** The next page's link (its cursor and the filter) and, on a later page, the first page's. */
export function pagerOf(cursors: CursorCodec, list: string, path: string, values: LinkParams, next: Keyset | undefined, later: boolean): Pager {
  return {
    next: next ? withQuery(path, { ...values, cursor: cursors.encode(list, { createdAt: next.createdAt, id: next.id }) }) : null,
    newest: later ? withQuery(path, values) : null,
  };
}

/** What a list's links carry: its filter's values and its view. */
type LinkParams = Record<string, string | undefined>;

/** Who a dashboard search is counted against: the browser's session (its id's hash). */
export function sessionKey(request: FastifyRequest): string {
  return `session:${accountOf(request).session.idHash}`;
}
