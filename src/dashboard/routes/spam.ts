import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { ProblemError } from '../../errors.js';
import { nextOf } from '../../services/pagination.js';
import type { SearchLimits } from '../../web/search-limits.js';
import { readFilter } from '../date-range.js';
import { setFlash } from '../flash.js';
import { formFrame } from '../form-frame.js';
import { withQuery } from '../links.js';
import { type BulkTicks, bulkTicks } from '../bulk-ticks.js';
import { notSpamFlash } from '../not-spam-flash.js';
import { seeOther, sendPage } from '../render.js';
import { accountOf, requireAccount } from '../session.js';
import { HeldPage } from '../views/held-page.js';
import { SpamPage } from '../views/spam-page.js';
import { INBOX_PAGE_SIZE, pagerOf, sessionKey } from './inbox.js';
import { problemText } from './submission.js';

type FolderRequest = { Params: { formId: string }; Querystring: { cursor?: unknown; search?: unknown } };
type BulkBody = BulkTicks;

/** A form's spam folder (listed and searched as the inbox, with bulk Not spam and Delete) and its held submissions. */
export function registerSpamRoutes(app: FastifyInstance, ctx: AppContext, searchLimits: SearchLimits): void {
  app.get<FolderRequest>('/forms/:formId/spam', { preHandler: requireAccount }, async (request, reply) => {
    const { formId } = request.params;
    const userId = accountOf(request).user.id;
    const list = `spam:form:${formId}`;
    const cursor = cursorOf(request.query.cursor);
    const after = cursor === null ? null : ctx.cursors.decode(list, cursor);
    const { frame, form } = await formFrame(request, reply, ctx, formId);
    // the inbox's search field and its rules (at most 256 characters, a bad one shown beside the field with a 400)
    const { values, filter, errors } = readFilter({ search: request.query.search });
    const search = filter.search;
    // a search costs more than a page: it counts against the session's and the address's search limits, as the inbox's
    if (search !== undefined) await searchLimits.take(sessionKey(request), request.ip, reply);
    const page = { limit: INBOX_PAGE_SIZE, after };
    const [found, folder] = await Promise.all([
      search === undefined ? ctx.submissions.listFolder(userId, formId, 'spam', page) : ctx.submissions.searchSpam(userId, formId, page, search),
      ctx.submissions.spamFolder(userId, formId, ctx.config.spamRetentionMs),
    ]);
    const files = await ctx.submissionFiles.storedCounts(found.rows.map((row) => row.id));
    const rows = found.rows.map((row) => ({ ...row, files: files.get(row.id) ?? 0 }));
    const path = `/forms/${formId}/spam`;
    const kept = { search: errors.search ? '' : values.search };
    const pager = pagerOf(ctx.cursors, list, path, kept, nextOf(found) ?? undefined, cursor !== null);
    const back = withQuery(path, { ...kept, ...(cursor ? { cursor } : {}) });
    const retentionMs = ctx.config.spamRetentionMs;
    const props = { frame, form, rows, pager, retentionMs, folder, back, search: values.search, errors };
    return sendPage(reply, SpamPage(props), Object.keys(errors).length > 0 ? 400 : 200);
  });

  app.get<FolderRequest>('/forms/:formId/held', { preHandler: requireAccount }, async (request, reply) => {
    const { formId } = request.params;
    const list = `held:form:${formId}`;
    const cursor = cursorOf(request.query.cursor);
    const after = cursor === null ? null : ctx.cursors.decode(list, cursor);
    const { frame, form } = await formFrame(request, reply, ctx, formId);
    const page = await ctx.submissions.listFolder(accountOf(request).user.id, formId, 'held', { limit: INBOX_PAGE_SIZE, after });
    const pager = pagerOf(ctx.cursors, list, `/forms/${formId}/held`, {}, page.hasMore ? page.rows.at(-1) : undefined, cursor !== null);
    return sendPage(reply, HeldPage({ frame, form, workspace: form, rows: page.rows, pager }));
  });

  // The folder's bulk actions on the ticked rows of a page: every id must be spam of this form, else nothing
  // changes (another form's or workspace's id is the 404 page). Delete leads to the confirmation the inbox's uses.
  app.post<{ Params: { formId: string }; Body: BulkBody }>('/forms/:formId/spam/bulk', { preHandler: requireAccount }, (request, reply) =>
    bulk(ctx, request, reply),
  );
}

async function bulk(ctx: AppContext, request: FastifyRequest<{ Params: { formId: string }; Body: BulkBody }>, reply: FastifyReply) {
  const { user } = accountOf(request);
  const { formId } = request.params;
  const { ids, back } = bulkTicks(request.body, `/forms/${formId}/spam`);
  const action = request.body?.action;
  if (ids.length === 0) {
    setFlash(reply, 'Nothing changed: tick the submissions first.');
    return seeOther(reply, back);
  }
  try {
    const chosen = await ctx.submissions.spamIdsOf(user.id, formId, ids);
    if (action === 'delete') {
      const query = new URLSearchParams([...chosen.map((id) => ['id', id]), ['back', back]]);
      return seeOther(reply, `/submissions/delete?${query}`);
    }
    if (action === 'not-spam') {
      setFlash(reply, notSpamFlash(await moveEach(ctx, user.id, chosen)));
    } else {
      setFlash(reply, 'Nothing changed: choose Not spam or Delete.');
    }
  } catch (error) {
    // an id of another form or workspace, or none at all, is the 404 page, as it would be alone
    if (error instanceof ProblemError && error.code === 'not_found') throw error;
    setFlash(reply, `Nothing changed: ${problemText(error)}`);
  }
  return seeOther(reply, back);
}

/**
 * Not spam for each, oldest first, each exactly as the single Not spam (its own transaction: counted,
 * delivered, or held when the allowance runs out on the way). One moved meanwhile by someone else
 * (`conflict`) or deleted (`not_found`) is counted as gone, and the others still move.
 */
async function moveEach(ctx: AppContext, userId: string, ids: string[]) {
  const moved = [];
  let gone = 0;
  for (const id of ids) {
    try {
      moved.push(await ctx.submissions.markNotSpam(userId, id));
    } catch (error) {
      if (!(error instanceof ProblemError) || (error.code !== 'conflict' && error.code !== 'not_found')) throw error;
      gone += 1;
    }
  }
  return { moved, gone };
}

function cursorOf(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}
