import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { lastWorkspaceId, workspaceFrame } from '../frame.js';
import { seeOther, sendPage } from '../render.js';
import { accountOf, requireAccount } from '../session.js';
import { WorkspacePage } from '../views/workspace-page.js';

// Part 2 pages the forms; the overview shows the newest ones.
const FORMS_SHOWN = 100;

export function registerWorkspaceHomeRoutes(app: FastifyInstance, ctx: AppContext): void {
  // The dashboard opens on the workspace last visited, else the account's newest.
  app.get('/', { preHandler: requireAccount }, async (request, reply) => {
    const { user } = accountOf(request);
    const last = lastWorkspaceId(request);
    const listed = await ctx.workspaces.listForUser(user.id, { limit: 100, after: null });
    const target = listed.rows.find((w) => w.id === last) ?? listed.rows[0];
    return seeOther(reply, target ? `/w/${target.id}` : '/workspaces/new');
  });

  app.get<{ Params: { workspaceId: string } }>('/w/:workspaceId', { preHandler: requireAccount }, async (request, reply) => {
    const { user } = accountOf(request);
    const { frame, workspace } = await workspaceFrame(request, reply, ctx, request.params.workspaceId, 'forms');
    const [forms, counts] = await Promise.all([
      ctx.forms.listForms(user.id, workspace.id, { limit: FORMS_SHOWN, after: null }),
      ctx.workspaces.counts(workspace.id),
    ]);
    return sendPage(reply, WorkspacePage({ frame, workspace, forms: forms.rows, ...counts, submitUrl: ctx.config.submitUrl }));
  });
}
