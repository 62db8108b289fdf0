import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import type { FieldErrors } from '../field-errors.js';
import { fieldErrors } from '../field-errors.js';
import { setFlash } from '../flash.js';
import { workspaceFrame } from '../frame.js';
import { seeOther, sendPage } from '../render.js';
import { accountOf, requireAccount } from '../session.js';
import { SettingsPage } from '../views/settings-page.js';

type WorkspaceRequest = FastifyRequest<{ Params: { workspaceId: string }; Body: { name?: string } }>;

/** A workspace's settings page: rename it (any member, on any plan), see its plan and allowance. */
export function registerWorkspaceSettingsRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Params: { workspaceId: string } }>('/w/:workspaceId/settings', { preHandler: requireAccount }, (request, reply) =>
    settingsPage(request as WorkspaceRequest, reply),
  );

  app.post<{ Params: { workspaceId: string }; Body: { name?: string } }>('/w/:workspaceId/settings', { preHandler: requireAccount }, async (request, reply) => {
    const { user } = accountOf(request);
    const name = String(request.body?.name ?? '');
    try {
      await ctx.workspaces.renameWorkspace(user.id, request.params.workspaceId, name);
    } catch (error) {
      return settingsPage(request, reply, { name, errors: fieldErrors(error) }, 400);
    }
    setFlash(reply, 'Workspace renamed');
    return seeOther(reply, `/w/${request.params.workspaceId}/settings`);
  });

  async function settingsPage(request: WorkspaceRequest, reply: FastifyReply, refused: { name?: string; errors?: FieldErrors } = {}, status = 200) {
    // not_found (the 404 page) for a workspace the account does not belong to
    const { frame, workspace } = await workspaceFrame(request, reply, ctx, request.params.workspaceId, 'settings');
    const counts = await ctx.workspaces.counts(workspace.id);
    return sendPage(reply, SettingsPage({ frame, workspace, ...counts, ...refused }), status);
  }
}
