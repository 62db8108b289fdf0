import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { ProblemError } from '../../errors.js';
import { type FieldErrors, fieldErrors } from '../field-errors.js';
import { setFlash, successFlash } from '../flash.js';
import { workspaceFrame } from '../frame.js';
import { seeOther, sendPage } from '../render.js';
import { accountOf, requireAccount } from '../session.js';
import { MembersPage, type SentInvitation } from '../views/members-page.js';
import { problemRefusalHeaders } from '../../web/limiter.js';

type WorkspaceParams = { workspaceId: string };

/** The members page: the team, pending invitations, inviting and revoking. */
export function registerMembersRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Params: WorkspaceParams }>('/w/:workspaceId/members', { preHandler: requireAccount }, (request, reply) =>
    membersPage(request, reply, request.params.workspaceId),
  );

  app.post<{ Params: WorkspaceParams; Body: { email?: string } }>('/w/:workspaceId/invitations', { preHandler: requireAccount }, async (request, reply) => {
    const { workspaceId } = request.params;
    const email = String(request.body?.email ?? '');
    try {
      return await invitationSent(request, reply, workspaceId, email);
    } catch (error) {
      // not an owner, or not a member at all: a page of its own, not a message beside the field
      if (error instanceof ProblemError && (error.code === 'forbidden' || error.code === 'not_found')) throw error;
      const errors = fieldErrors(error);
      if (error instanceof ProblemError && error.code === 'rate_limited') reply.headers(problemRefusalHeaders(error.extra));
      return membersPage(request, reply, workspaceId, { email, errors }, (error as ProblemError).status);
    }
  });

  // a new link for a pending invitation, to copy: the old one stops working (only its hash is kept, so it cannot be shown again)
  app.post<{ Params: WorkspaceParams & { invitationId: string } }>(
    '/w/:workspaceId/invitations/:invitationId/new-link',
    { preHandler: requireAccount },
    async (request, reply) => {
      const { workspaceId, invitationId } = request.params;
      const pending = await ctx.invitations.getPending(accountOf(request).user.id, workspaceId, invitationId);
      return invitationSent(request, reply, workspaceId, pending.email);
    },
  );

  app.post<{ Params: WorkspaceParams & { invitationId: string } }>(
    '/w/:workspaceId/invitations/:invitationId/revoke',
    { preHandler: requireAccount },
    async (request, reply) => {
      const { workspaceId, invitationId } = request.params;
      const invitation = await ctx.invitations.revoke(accountOf(request).user.id, workspaceId, invitationId);
      setFlash(reply, `Invitation to ${invitation.email} revoked`);
      return seeOther(reply, `/w/${workspaceId}/members`);
    },
  );

  /** Invites (again) and shows the link once, to copy, as a new API token is shown: a reload would make yet another. */
  async function invitationSent(request: FastifyRequest, reply: FastifyReply, workspaceId: string, email: string) {
    const { invitation, replaced, link } = await ctx.invitations.invite(accountOf(request).user.id, workspaceId, email);
    const flash = replaced ? `A new invitation was sent to ${invitation.email}; the earlier link no longer works` : `Invitation sent to ${invitation.email}`;
    return membersPage(request, reply, workspaceId, { sent: { email: invitation.email, link, expiresAt: invitation.expiresAt }, flash });
  }

  async function membersPage(
    request: FastifyRequest,
    reply: FastifyReply,
    workspaceId: string,
    form: { email?: string; errors?: FieldErrors; sent?: SentInvitation; flash?: string } = {},
    status = 200,
  ) {
    const { user } = accountOf(request);
    const { frame, workspace } = await workspaceFrame(request, reply, ctx, workspaceId, 'members');
    const [members, invitations, seats] = await Promise.all([
      ctx.team.listMembers(user.id, workspaceId),
      ctx.invitations.listPending(user.id, workspaceId),
      ctx.team.seats(user.id, workspaceId),
    ]);
    const owner = members.some((m) => m.userId === user.id && m.role === 'owner');
    const { flash, ...rest } = form;
    const page = MembersPage({
      frame: flash ? { ...frame, flash: successFlash(flash) } : frame,
      workspace,
      members,
      invitations,
      seats,
      viewer: { userId: user.id, owner },
      ...rest,
    });
    return sendPage(reply, page, status);
  }
}
