import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { type InvitationView, refusal } from '../../services/invitations.js';
import { normaliseEmail } from '../../domain/email-address.js';
import { setFlash } from '../flash.js';
import { csrfToken } from '../frame.js';
import { PageError } from '../page-error.js';
import { seeOther, sendPage } from '../render.js';
import { endSession, type SessionCookie } from '../session.js';
import { JoinWorkspacePage, LogInToAcceptPage, OtherAccountPage } from '../views/invitation-pages.js';

type SecretParams = { secret: string };

/** The invitation behind a link, if it still works; otherwise a page that says why (404 never was, 410 no longer). */
export async function pendingInvitation(ctx: AppContext, secret: string): Promise<InvitationView> {
  const view = await ctx.invitations.open(secret);
  if (!view) {
    throw new PageError(
      404,
      'Invitation not found',
      'This invitation link is not valid. Check that you opened the whole link from the email, or ask for a new one.',
    );
  }
  if (view.state !== 'pending') throw new PageError(410, 'Invitation no longer valid', refusal(view.state));
  return view;
}

/** An emailed invitation's link: join as the invited account, log in or sign up first, or log out of another account. */
export function registerInvitationRoutes(app: FastifyInstance, ctx: AppContext, cookie: SessionCookie): void {
  app.get<{ Params: SecretParams }>('/invitations/:secret', async (request, reply) => {
    const { secret } = request.params;
    const view = await pendingInvitation(ctx, secret);
    const user = request.account?.user;
    if (user) {
      const page = normaliseEmail(user.email) === view.invitation.email ? JoinWorkspacePage : OtherAccountPage;
      return sendPage(reply, page({ csrf: csrfToken(request, reply), view, secret, email: user.email }));
    }
    if (await ctx.users.findByEmail(view.invitation.email)) return sendPage(reply, LogInToAcceptPage({ view, secret }));
    return seeOther(reply, `/signup?invitation=${encodeURIComponent(secret)}`);
  });

  app.post<{ Params: SecretParams }>('/invitations/:secret', async (request, reply) => {
    const { secret } = request.params;
    await pendingInvitation(ctx, secret);
    const user = request.account?.user;
    if (!user) return seeOther(reply, `/invitations/${encodeURIComponent(secret)}`);
    const workspace = await ctx.invitations.accept(secret, user);
    setFlash(reply, `You joined ${workspace.name}`);
    return seeOther(reply, `/w/${workspace.id}`);
  });

  app.post<{ Params: SecretParams }>('/invitations/:secret/logout', async (request, reply) => {
    await endSession(request, reply, ctx.sessions, cookie);
    return seeOther(reply, `/invitations/${encodeURIComponent(request.params.secret)}`);
  });
}
