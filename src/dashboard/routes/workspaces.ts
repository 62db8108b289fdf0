import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { fieldErrors } from '../field-errors.js';
import { setFlash } from '../flash.js';
import { frameFor } from '../frame.js';
import { seeOther, sendPage } from '../render.js';
import { accountOf, requireAccount } from '../session.js';
import { NewWorkspacePage, WorkspacesPage } from '../views/workspaces-pages.js';

const PAGE_SIZE = 50;

/** The account's workspaces (`/workspaces`) and the form that creates one (`/workspaces/new`). */
export function registerWorkspacesRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Querystring: { after?: string } }>('/workspaces', { preHandler: requireAccount }, async (request, reply) => {
    const { user } = accountOf(request);
    // a cursor of its own list: signed for this account, so it cannot page anyone else's
    const list = `dashboard-workspaces:${user.id}`;
    const after = typeof request.query.after === 'string' ? ctx.cursors.decode(list, request.query.after) : null;
    const [frame, page] = await Promise.all([
      frameFor(request, reply, ctx, { section: 'workspaces' }),
      ctx.workspaces.listForUser(user.id, { limit: PAGE_SIZE, after }),
    ]);
    const last = page.rows.at(-1);
    const nextPage = page.hasMore && last ? `/workspaces?after=${ctx.cursors.encode(list, last)}` : null;
    return sendPage(reply, WorkspacesPage({ frame, workspaces: page.rows, nextPage }));
  });

  app.get('/workspaces/new', { preHandler: requireAccount }, async (request, reply) => {
    const frame = await frameFor(request, reply, ctx, { section: 'workspaces' });
    return sendPage(reply, NewWorkspacePage({ frame, defaultPlan: ctx.users.defaultPlan }));
  });

  app.post<{ Body: { name?: string } }>('/workspaces/new', { preHandler: requireAccount }, async (request, reply) => {
    const { user } = accountOf(request);
    const name = String(request.body?.name ?? '');
    try {
      const workspace = await ctx.workspaces.createWorkspace(user.id, name);
      setFlash(reply, 'Workspace created');
      return seeOther(reply, `/w/${workspace.id}`);
    } catch (error) {
      const errors = fieldErrors(error);
      const frame = await frameFor(request, reply, ctx, { section: 'workspaces' });
      return sendPage(reply, NewWorkspacePage({ frame, defaultPlan: ctx.users.defaultPlan, name, errors }), 400);
    }
  });
}
