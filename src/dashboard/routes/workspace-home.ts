import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { lastWorkspaceId, workspaceFrame } from '../frame.js';
import { seeOther, sendPage } from '../render.js';
import { accountOf, requireAccount } from '../session.js';
import { WorkspacePage } from '../views/workspace-page.js';

// A page of the forms list; more go on the next page, by signed cursor.
const PAGE_SIZE = 50;

export function registerWorkspaceHomeRoutes(app: FastifyInstance, ctx: AppContext): void {
  // The dashboard opens on the workspace last visited, else the account's newest.
  app.get('/', { preHandler: requireAccount }, async (request, reply) => {
    const { user } = accountOf(request);
    const last = lastWorkspaceId(request);
    const listed = await ctx.workspaces.listForUser(user.id, { limit: 100, after: null });
    const target = listed.rows.find((w) => w.id === last) ?? listed.rows[0];
    return seeOther(reply, target ? `/w/${target.id}` : '/workspaces/new');
  });

  // The workspace's home: plan and allowance, its chart, and its forms with their counts.
  app.get<{ Params: { workspaceId: string }; Querystring: { cursor?: unknown } }>('/w/:workspaceId', { preHandler: requireAccount }, async (request, reply) => {
    const { user } = accountOf(request);
    const { frame, workspace } = await workspaceFrame(request, reply, ctx, request.params.workspaceId, 'forms');
    // a cursor of this workspace's list only: one from elsewhere is refused (400)
    const list = `dashboard-forms:${workspace.id}`;
    const cursor = typeof request.query.cursor === 'string' ? request.query.cursor : null;
    const after = cursor === null ? null : ctx.cursors.decode(list, cursor);
    const [forms, counts] = await Promise.all([ctx.forms.listForms(user.id, workspace.id, { limit: PAGE_SIZE, after }), ctx.workspaces.counts(workspace.id)]);
    const formIds = forms.rows.map((f) => f.id);
    const [stats, unread, states] = await Promise.all([
      ctx.stats.workspaceStats(user.id, workspace.id, formIds),
      ctx.submissionMarks.unreadCounts(formIds),
      ctx.forms.states(forms.rows),
    ]);
    const last = forms.rows.at(-1);
    const nextPage = forms.hasMore && last ? `/w/${workspace.id}?cursor=${ctx.cursors.encode(list, last)}` : null;
    return sendPage(reply, WorkspacePage({ frame, workspace, forms: forms.rows, stats, ...counts, nextPage, paged: cursor !== null, unread, states }));
  });
}
