import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { fieldErrors } from '../field-errors.js';
import { setFlash } from '../flash.js';
import { csrfToken } from '../frame.js';
import { seeOther, sendPage } from '../render.js';
import { type SessionCookie, startSession } from '../session.js';
import type { SignupEmailLimits } from '../signup-limits.js';
import { SignupClosedPage, SignupPage } from '../views/auth-pages.js';
import { OpenSignupPage } from '../views/signup-pages.js';
import { pendingInvitation } from './invitations.js';
import { askForSignupLink, registerOpenSignupRoutes } from './open-signup.js';
import { passwordsOffNote, passwordsOffPage } from '../sso-only.js';

interface SignupBody {
  email?: string;
  password?: string;
  invitation?: string;
}

/** Whether the sign-up page is open to anyone: before the first account, or with FORMGATE_SIGNUP=open. */
export async function anyoneMaySignUp(ctx: AppContext): Promise<boolean> {
  return ctx.config.signup === 'open' || !(await ctx.users.hasAnyAccount());
}

/**
 * The first account signs up at once (it becomes the instance admin); after it, open sign-up goes
 * by an emailed link (open-signup.ts), and invited people by their invitation's link.
 */
export function registerSignupRoutes(app: FastifyInstance, ctx: AppContext, cookie: SessionCookie, limits: SignupEmailLimits): void {
  registerOpenSignupRoutes(app, ctx, cookie, limits);

  app.get<{ Querystring: { invitation?: string } }>('/signup', async (request, reply) => {
    const secret = request.query.invitation;
    if (secret !== undefined) return invitedSignup(request, reply, String(secret));
    if (request.account) return seeOther(reply, '/');
    const first = !(await ctx.users.hasAnyAccount());
    if (!first && (await passwordsOffNote(ctx))) return passwordsOffPage(ctx, reply);
    if (!first && ctx.config.signup !== 'open') return closed(reply);
    if (!first) return sendPage(reply, OpenSignupPage({ csrf: csrfToken(request, reply) }));
    return sendPage(reply, SignupPage({ csrf: csrfToken(request, reply) }));
  });

  app.post<{ Body: SignupBody }>('/signup', async (request, reply) => {
    const email = String(request.body?.email ?? '');
    const password = String(request.body?.password ?? '');
    if (request.body?.invitation !== undefined) return invitedSignup(request, reply, String(request.body.invitation), { email, password });
    const first = !(await ctx.users.hasAnyAccount());
    if (!first && (await passwordsOffNote(ctx))) return passwordsOffPage(ctx, reply);
    if (!first && ctx.config.signup !== 'open') return closed(reply);
    if (!first) return askForSignupLink(ctx, limits, request, reply, email);
    try {
      const { user } = await ctx.users.createUser(email, password);
      await startSession(request, reply, ctx.sessions, cookie, user.id);
      limits.signedUp(request, reply, user.email);
      return seeOther(reply, '/');
    } catch (error) {
      return refused(request, reply, { email, errors: fieldErrors(error) });
    }
  });

  /**
   * Sign-up by an invitation's link, open when FORMGATE_SIGNUP is `invite` or `open` (never
   * `closed`): the address is the invitation's, and the new account joins its workspace at once.
   */
  async function invitedSignup(request: FastifyRequest, reply: FastifyReply, secret: string, posted?: { email: string; password: string }) {
    if (ctx.config.signup === 'closed') return closed(reply);
    if (request.account) return seeOther(reply, `/invitations/${encodeURIComponent(secret)}`);
    // single sign-on only: the invited person signs in by the provider, then accepts the invitation
    if (await passwordsOffNote(ctx)) return passwordsOffPage(ctx, reply, `/invitations/${encodeURIComponent(secret)}`);
    const view = await pendingInvitation(ctx, secret);
    const invitation = { token: secret, email: view.invitation.email, workspaceName: view.workspaceName };
    // someone with an account logs in instead (the invitation's page says so)
    if (await ctx.users.findByEmail(view.invitation.email)) return seeOther(reply, `/invitations/${encodeURIComponent(secret)}`);
    if (!posted) return sendPage(reply, SignupPage({ csrf: csrfToken(request, reply), invitation }));
    try {
      const { user, workspace } = await ctx.invitations.signUp(secret, posted.email, posted.password);
      await startSession(request, reply, ctx.sessions, cookie, user.id);
      limits.signedUp(request, reply, user.email);
      setFlash(reply, `You joined ${workspace.name}`);
      return seeOther(reply, `/w/${workspace.id}`);
    } catch (error) {
      return sendPage(reply, SignupPage({ csrf: csrfToken(request, reply), invitation, errors: fieldErrors(error) }), 400);
    }
  }

  function refused(request: FastifyRequest, reply: FastifyReply, page: { email: string; errors: Record<string, string> }) {
    return sendPage(reply, SignupPage({ csrf: csrfToken(request, reply), ...page }), 400);
  }

  function closed(reply: FastifyReply) {
    return sendPage(reply, SignupClosedPage({ byInvitation: ctx.config.signup === 'invite' }), 403);
  }
}
