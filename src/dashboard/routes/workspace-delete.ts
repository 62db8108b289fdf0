import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { type FieldErrors, fieldErrors } from '../field-errors.js';
import { setFlash } from '../flash.js';
import { workspaceFrame } from '../frame.js';
import { seeOther, sendPage } from '../render.js';
import { accountOf, requireAccount } from '../session.js';
import { DeleteWorkspacePage } from '../views/workspace-delete-page.js';

type WorkspaceParams = { Params: { workspaceId: string } };

/**
 * Deleting a workspace (its owners only: a member gets the 403 page, anyone else the 404 page), after
 * a page that counts what goes with it and asks for its name. Deleting one's last workspace is
 * allowed: `/` then leads to *New workspace* (docs/dashboard.md, "Workspaces and plans").
 */
export function registerWorkspaceDeleteRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get<WorkspaceParams>('/w/:workspaceId/delete', { preHandler: requireAccount }, (request, reply) => confirmPage(request, reply));

  app.post<WorkspaceParams & { Body: { confirmName?: unknown } }>('/w/:workspaceId/delete', { preHandler: requireAccount }, async (request, reply) => {
    const { user } = accountOf(request);
    const typed = typeof request.body?.confirmName === 'string' ? request.body.confirmName : '';
    try {
      const { workspace, counts } = await ctx.workspaceDeletion.delete(user.id, request.params.workspaceId, typed);
      request.log.info(
        {
          workspaceId: workspace.id,
          userId: user.id,
          forms: counts.forms,
          submissions: counts.submissions,
          files: counts.files,
          members: counts.otherMembers,
          invitations: counts.pendingInvitations,
        },
        'workspace deleted by its owner',
      );
      setFlash(reply, `Workspace “${workspace.name}” deleted`);
      return seeOther(reply, '/');
    } catch (error) {
      // a stranger's 404 and a member's 403 are pages of their own; a wrong name is shown beside the field
      const errors = fieldErrors(error);
      if (!errors.confirmName) throw error;
      return confirmPage(request, reply, { typed, errors }, 400);
    }
  });

  async function confirmPage(
    request: FastifyRequest<WorkspaceParams>,
    reply: FastifyReply,
    refused: { typed?: string; errors?: FieldErrors } = {},
    status = 200,
  ) {
    const { frame } = await workspaceFrame(request, reply, ctx, request.params.workspaceId, 'settings');
    const { workspace, counts } = await ctx.workspaceDeletion.counts(accountOf(request).user.id, request.params.workspaceId);
    return sendPage(reply, DeleteWorkspacePage({ frame, workspace, counts, ...refused }), status);
  }
}
