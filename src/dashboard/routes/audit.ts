import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { DAY_MS } from '../../domain/time.js';
import type { AuditFilterInput } from '../../services/audit-events.js';
import type { AuditEvent } from '../../services/audit-log.js';
import type { Keyset, Page, PageRequest } from '../../services/pagination.js';
import { ProblemError, validationError } from '../../errors.js';
import { type FieldErrors, fieldErrors } from '../field-errors.js';
import { frameFor, workspaceFrame } from '../frame.js';
import { withQuery } from '../links.js';
import { sendPage } from '../render.js';
import { accountOf, requireAccount } from '../session.js';
import { msOfLocalInput, zoneOf } from '../time-zone.js';
import { type AuditFilterValues, AuditPage } from '../views/audit-page.js';

const PAGE_SIZE = 50;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

type Query = Record<string, unknown>;

/** The filter as typed in the address bar, and the cursor of a later page. */
function valuesOf(query: Query): { values: AuditFilterValues; cursor: string | undefined } {
  const text = (name: string) => (typeof query[name] === 'string' ? (query[name] as string).trim() : '');
  return { values: { group: text('group'), person: text('person'), from: text('from'), to: text('to') }, cursor: text('cursor') || undefined };
}

/** The filter for the service: the days read in the viewer's zone (`to` included: its next day's start); a bad day is a message beside it. */
function inputOf(values: AuditFilterValues, zone: string): { input: AuditFilterInput; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const dayStart = (name: 'from' | 'to', later = 0): number | undefined => {
    if (!values[name]) return undefined;
    const ms = DAY.test(values[name]) ? msOfLocalInput(`${dayAfter(values[name], later)}T00:00`, zone) : Number.NaN;
    if (Number.isNaN(ms)) errors[name] = 'Must be a date written YYYY-MM-DD, such as 2026-11-24.';
    return Number.isNaN(ms) ? undefined : ms;
  };
  // `to` is included: up to the start of the day after it, read in the zone (a day with a change of clock is 23 or 25 hours long)
  const from = dayStart('from');
  const to = dayStart('to', 1);
  return { input: { group: values.group, actor: values.person, from, to }, errors };
}

/** The calendar day `days` after a `YYYY-MM-DD` day (itself when 0); an impossible day stays as it is, for the reader to refuse. */
function dayAfter(day: string, days: number): string {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  const ms = Date.UTC(year, month - 1, date);
  if (new Date(ms).toISOString().slice(0, 10) !== day) return day;
  return new Date(ms + days * DAY_MS).toISOString().slice(0, 10);
}

/** The audit log's pages: a workspace's for its owners (`/w/:id/audit`), everything for the instance admin (`/admin/audit`). */
export function registerAuditRoutes(app: FastifyInstance, ctx: AppContext): void {
  const retentionDays = ctx.config.auditRetentionMs === null ? null : Math.round(ctx.config.auditRetentionMs / DAY_MS);

  async function auditPage(
    request: FastifyRequest,
    reply: FastifyReply,
    query: Query,
    where: { path: string; list: string; workspace: { id: string; name: string } | null },
    read: (input: AuditFilterInput, page: PageRequest) => Promise<Page<AuditEvent>>,
    frame: Awaited<ReturnType<typeof frameFor>>,
  ) {
    const zone = zoneOf(request);
    const { values, cursor } = valuesOf(query);
    const { input, errors } = inputOf(values, zone);
    let after: Keyset | null = null;
    if (cursor !== undefined) {
      try {
        after = ctx.cursors.decode(where.list, cursor);
      } catch {
        throw validationError(
          ['cursor: not a page of this log'],
          'This page of the audit log is not one this dashboard made. Start again from the first page.',
        );
      }
    }
    let page: Page<AuditEvent> = { rows: [], hasMore: false };
    let status = Object.keys(errors).length > 0 ? 400 : 200;
    try {
      if (status === 200) page = await read(input, { limit: PAGE_SIZE, after });
    } catch (error) {
      // a member who is no owner: the refusal's page, as the other owners' pages give it
      if (!(error instanceof ProblemError) || error.code !== 'validation_error') throw error;
      const refused = fieldErrors(error);
      if (refused.actor) refused.person = refused.actor;
      Object.assign(errors, refused);
      status = 400;
    }
    const filter = { group: values.group, person: values.person, from: values.from, to: values.to };
    const last = page.rows.at(-1);
    const pager = {
      next: page.hasMore && last ? withQuery(where.path, { ...filter, cursor: ctx.cursors.encode(where.list, last) }) : null,
      newest: cursor !== undefined ? withQuery(where.path, filter) : null,
    };
    const props = { frame, workspace: where.workspace, events: page.rows, values, errors, pager, path: where.path, retentionDays, zone };
    return sendPage(reply, AuditPage(props), status);
  }

  app.get<{ Params: { workspaceId: string }; Querystring: Query }>('/w/:workspaceId/audit', { preHandler: requireAccount }, async (request, reply) => {
    const { user } = accountOf(request);
    const { frame, workspace } = await workspaceFrame(request, reply, ctx, request.params.workspaceId, 'settings');
    const where = { path: `/w/${workspace.id}/audit`, list: `audit:${workspace.id}`, workspace };
    return auditPage(request, reply, request.query, where, (input, page) => ctx.auditEvents.forWorkspace(user.id, workspace.id, input, page), frame);
  });

  app.get<{ Querystring: Query }>('/admin/audit', { preHandler: requireAccount }, async (request, reply) => {
    const { user } = accountOf(request);
    // checked before anything is read, as the admin page does: anyone else finds nothing here
    ctx.admin.requireAdmin(user);
    const frame = await frameFor(request, reply, ctx, { section: 'admin' });
    const where = { path: '/admin/audit', list: 'audit:installation', workspace: null };
    return auditPage(request, reply, request.query, where, (input, page) => ctx.auditEvents.forInstallation(user, input, page), frame);
  });
}
