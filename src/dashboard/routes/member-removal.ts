import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { setFlash } from '../flash.js';
import { frameFor } from '../frame.js';
import { seeOther, sendPage } from '../render.js';
import { accountOf, requireAccount } from '../session.js';
import { LeaveWorkspacePage, RemoveMemberPage } from '../views/member-confirm-pages.js';

type MemberParams = { workspaceId: string; userId: string };

/** Removing a member and leaving a workspace: each asks first on a page of its own, then changes on POST. */
export function registerMemberRemovalRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Params: MemberParams }>('/w/:workspaceId/members/:userId/remove', { preHandler: requireAccount }, async (request, reply) => {
    const { user } = accountOf(request);
    const { workspaceId, userId } = request.params;
    const frame = await frameFor(request, reply, ctx, { workspaceId, section: 'members' });
    // the same checks as the change itself, so the page never offers what the POST would refuse
    const { workspace, member } = await ctx.team.removable(user.id, workspaceId, userId);
    return sendPage(reply, RemoveMemberPage({ frame, workspaceId, workspaceName: workspace.name, email: member.email, userId }));
  });

  app.post<{ Params: MemberParams }>('/w/:workspaceId/members/:userId/remove', { preHandler: requireAccount }, async (request, reply) => {
    const { workspaceId, userId } = request.params;
    const removed = await ctx.team.removeMember(accountOf(request).user.id, workspaceId, userId);
    setFlash(reply, `${removed.email} removed`);
    return seeOther(reply, `/w/${workspaceId}/members`);
  });

  app.get<{ Params: { workspaceId: string } }>('/w/:workspaceId/leave', { preHandler: requireAccount }, async (request, reply) => {
    const { user } = accountOf(request);
    const { workspaceId } = request.params;
    const frame = await frameFor(request, reply, ctx, { workspaceId, section: 'members' });
    const workspace = await ctx.team.leavable(user.id, workspaceId);
    return sendPage(reply, LeaveWorkspacePage({ frame, workspaceId, workspaceName: workspace.name }));
  });

  app.post<{ Params: { workspaceId: string } }>('/w/:workspaceId/leave', { preHandler: requireAccount }, async (request, reply) => {
    const workspace = await ctx.team.leave(accountOf(request).user.id, request.params.workspaceId);
    setFlash(reply, `You left ${workspace.name}`);
    return seeOther(reply, '/');
  });
}
