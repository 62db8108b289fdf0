import { workspaceNameForEmail } from '../../domain/workspace-name.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { ProblemError } from '../../errors.js';
import { normaliseEmail } from '../../domain/email-address.js';
import { fieldErrors } from '../field-errors.js';
import { setFlash, takeFlash } from '../flash.js';
import { csrfToken } from '../frame.js';
import { seeOther, sendPage } from '../render.js';
import { type SessionCookie, startSession } from '../session.js';
import type { SignupEmailLimits } from '../signup-limits.js';
import { SignupClosedPage } from '../views/auth-pages.js';
import { passwordsOffNote, passwordsOffPage } from '../sso-only.js';
import { ConfirmSignupPage, OpenSignupPage, SignupLinkExpiredPage, SignupLinkSentPage, SignupLinkUsedPage } from '../views/signup-pages.js';

// A dead link (expired, forged, used): the page says which, the status says it is gone.
const GONE = 410;

/**
 * POST /signup with FORMGATE_SIGNUP=open, after the first account: emails the address (a link, or a
 * note that it has an account) and answers "check your email" whatever the address and the limits.
 */
export async function askForSignupLink(ctx: AppContext, limits: SignupEmailLimits, request: FastifyRequest, reply: FastifyReply, email: string) {
  try {
    await ctx.signups.request(email, (address) => limits.allow(address, request.ip));
  } catch (error) {
    return sendPage(reply, OpenSignupPage({ csrf: csrfToken(request, reply), email, errors: fieldErrors(error) }), 400);
  }
  setFlash(reply, `We sent a link to ${normaliseEmail(email)}.`);
  return seeOther(reply, '/signup/sent');
}

/** The open sign-up form, and the pages of its emailed link (`/signup/confirm?token=…`). */
export function registerOpenSignupRoutes(app: FastifyInstance, ctx: AppContext, cookie: SessionCookie, limits: SignupEmailLimits): void {
  app.get('/signup/sent', async (request, reply) => sendPage(reply, SignupLinkSentPage({ message: takeFlash(request, reply)?.message ?? null })));

  app.get<{ Querystring: { token?: string } }>('/signup/confirm', async (request, reply) => {
    // links still in inboxes stop working as soon as the operator closes sign-up
    if (ctx.config.signup !== 'open') return closed(reply);
    if (await passwordsOffNote(ctx)) return passwordsOffPage(ctx, reply);
    return linkPage(request, reply, String(request.query.token ?? ''));
  });

  app.post<{ Body: { token?: string; password?: string; workspaceName?: string } }>('/signup/confirm', async (request, reply) => {
    if (ctx.config.signup !== 'open') return closed(reply);
    if (await passwordsOffNote(ctx)) return passwordsOffPage(ctx, reply);
    const token = String(request.body?.token ?? '');
    // the page always sends the name (empty is refused); left out, the one offered from the address
    const workspaceName = request.body?.workspaceName === undefined ? undefined : String(request.body.workspaceName);
    try {
      const { user } = await ctx.signups.confirm(token, String(request.body?.password ?? ''), workspaceName);
      await startSession(request, reply, ctx.sessions, cookie, user.id);
      limits.signedUp(request, reply, user.email);
      setFlash(reply, 'Welcome to Formgate: your account is ready.');
      return seeOther(reply, '/');
    } catch (error) {
      if (error instanceof ProblemError && (error.code === 'not_found' || error.code === 'conflict')) return linkPage(request, reply, token);
      return linkPage(request, reply, token, fieldErrors(error), workspaceName);
    }
  });

  /** The link's page as it stands now: the password form (with `errors` of a refused one), "used", or dead. */
  async function linkPage(request: FastifyRequest, reply: FastifyReply, token: string, errors?: Record<string, string>, workspaceName?: string) {
    const link = await ctx.signups.linkState(token);
    if (link.state === 'invalid') return sendPage(reply, SignupLinkExpiredPage(), GONE);
    if (link.state === 'used') return sendPage(reply, SignupLinkUsedPage({ email: link.email }), GONE);
    const name = workspaceName ?? workspaceNameForEmail(link.email);
    const page = ConfirmSignupPage({ csrf: csrfToken(request, reply), token, email: link.email, workspaceName: name, errors });
    return sendPage(reply, page, errors ? 400 : 200);
  }

  function closed(reply: FastifyReply) {
    return sendPage(reply, SignupClosedPage({ byInvitation: ctx.config.signup === 'invite' }), 403);
  }
}
