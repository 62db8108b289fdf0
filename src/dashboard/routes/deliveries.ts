import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import type { DeliveryRecord } from '../../services/deliveries.js';
import { ProblemError, validationError } from '../../errors.js';
import type { Keyset } from '../../services/pagination.js';
import { setFlash } from '../flash.js';
import { formFrame } from '../form-frame.js';
import { seeOther, sendPage } from '../render.js';
import { accountOf, requireAccount, safeNext } from '../session.js';
import { DELIVERY_FILTERS, type DeliveryFilter, DeliveriesPage } from '../views/deliveries-page.js';
import { formPath } from '../views/form-layout.js';

const PAGE_SIZE = 25;

/** What each filter of the page lists (All: every status). */
const FILTER_STATUS: Record<DeliveryFilter, DeliveryRecord['status'] | undefined> = { all: undefined, waiting: 'pending', failed: 'failed', delivered: 'done' };

export const QUEUED_AGAIN = 'Queued again: it will be tried within a few seconds, with the form’s settings as they are now (a webhook goes to its current URL)';

type FormParams = { Params: { formId: string } };
type RetryRoute = { Params: { formId: string; jobId: string }; Body: { back?: unknown } };
type LogQuery = Record<string, unknown>;

/** The filter and the page a query asks for; anything else in it is ignored. */
function readQuery(query: LogQuery): { filter: DeliveryFilter; cursor: string | undefined } {
  const status = typeof query.status === 'string' && query.status !== '' ? query.status : 'all';
  if (!(DELIVERY_FILTERS as readonly string[]).includes(status)) {
    throw validationError([`status: "${status}"`], `There is no "${status}" filter: show all, waiting, failed or delivered deliveries.`);
  }
  return { filter: status as DeliveryFilter, cursor: typeof query.cursor === 'string' && query.cursor !== '' ? query.cursor : undefined };
}

/** The log's address with a filter and a page (the first, without a cursor). */
function logAddress(formId: string, filter: DeliveryFilter, cursor?: string): string {
  const params = new URLSearchParams();
  if (filter !== 'all') params.set('status', filter);
  if (cursor) params.set('cursor', cursor);
  const query = params.toString();
  return `${formPath(formId, 'deliveries')}${query ? `?${query}` : ''}`;
}

/** Where a retry returns to: the log it came from (its filter and page), never elsewhere. */
function backTo(formId: string, back: unknown): string {
  const path = safeNext(back);
  const log = formPath(formId, 'deliveries');
  return path === log || path.startsWith(`${log}?`) ? path : log;
}

/** A form's delivery log: every email, webhook and Slack delivery with its tries, and Retry for the failed ones. */
export function registerDeliveryRoutes(app: FastifyInstance, ctx: AppContext): void {
  // a cursor is good for one form's log under one filter only
  const listName = (formId: string, filter: DeliveryFilter) => `deliveries:${formId}:${filter}`;

  async function logPage(request: FastifyRequest, reply: FastifyReply, formId: string, query: LogQuery, problem?: string, status = 200) {
    const { filter, cursor } = readQuery(query);
    const { frame, form } = await formFrame(request, reply, ctx, formId);
    let after: Keyset | null = null;
    if (cursor !== undefined) {
      try {
        after = ctx.cursors.decode(listName(form.id, filter), cursor);
      } catch {
        throw validationError(['cursor: not a page of this log'], 'This page of the log is not one this dashboard made. Start again from the first page.');
      }
    }
    const page = await ctx.deliveries.listForMember(accountOf(request).user.id, form.id, { status: FILTER_STATUS[filter], limit: PAGE_SIZE, after });
    const next = page.next ? logAddress(form.id, filter, ctx.cursors.encode(listName(form.id, filter), page.next)) : null;
    const here = logAddress(form.id, filter, cursor);
    const props = { frame, form, filter, deliveries: page.deliveries, next, here, paged: cursor !== undefined, problem };
    return sendPage(reply, DeliveriesPage(props), status);
  }

  app.get<FormParams & { Querystring: LogQuery }>('/forms/:formId/deliveries', { preHandler: requireAccount }, (request, reply) =>
    logPage(request, reply, request.params.formId, request.query),
  );

  app.post<RetryRoute>('/forms/:formId/deliveries/:jobId/retry', { preHandler: requireAccount }, async (request, reply) => {
    const { formId, jobId } = request.params;
    const back = backTo(formId, request.body?.back);
    try {
      await ctx.deliveries.retryForMember(accountOf(request).user.id, formId, { jobId });
    } catch (error) {
      // waiting or delivered meanwhile (another tab, another member): the log as it is now, and why
      if (error instanceof ProblemError && error.code === 'conflict') return logPage(request, reply, formId, queryOf(back), error.detail, 409);
      throw error;
    }
    setFlash(reply, QUEUED_AGAIN);
    return seeOther(reply, back);
  });

  app.post<RetryRoute>('/forms/:formId/deliveries/retry-failed', { preHandler: requireAccount }, async (request, reply) => {
    const { formId } = request.params;
    const queued = await ctx.deliveries.retryForMember(accountOf(request).user.id, formId, { allFailed: true });
    setFlash(
      reply,
      queued.length === 0
        ? 'No failed deliveries to retry.'
        : `Queued again: ${queued.length} failed ${queued.length === 1 ? 'delivery' : 'deliveries'} will be tried within a few seconds`,
    );
    return seeOther(reply, backTo(formId, request.body?.back));
  });
}

/** The query string of a log address, as the GET route reads it. */
function queryOf(address: string): LogQuery {
  return Object.fromEntries(new URL(address, 'http://localhost').searchParams);
}
