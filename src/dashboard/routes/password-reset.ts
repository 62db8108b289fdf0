import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { ProblemError } from '../../errors.js';
import { fieldErrors } from '../field-errors.js';
import { setFlash } from '../flash.js';
import { csrfToken } from '../frame.js';
import { type LoginLimits, refusalMessage } from '../login-limits.js';
import { seeOther, sendPage } from '../render.js';
import type { SessionCookie } from '../session.js';
import { revokeTokensTicked } from '../views/revoke-tokens-check.js';
import { ForgotPasswordPage, ResetLinkExpiredPage, ResetLinkSentPage, ResetPasswordPage } from '../views/password-reset-pages.js';
import { refusalHeaders } from '../../web/limiter.js';
import { mayUsePassword, passwordsOffNote, passwordsOffPage } from '../sso-only.js';

type TokenParams = { Params: { token: string } };

// Unknown, used and expired links share one page and one status: the page tells nothing more.
const EXPIRED_STATUS = 410;

export function registerPasswordResetRoutes(app: FastifyInstance, ctx: AppContext, cookie: SessionCookie, limits: LoginLimits): void {
  app.get('/forgot-password', async (request, reply) =>
    sendPage(reply, ForgotPasswordPage({ csrf: csrfToken(request, reply), passwordsOff: await passwordsOffNote(ctx) })),
  );

  app.post<{ Body: { email?: string } }>('/forgot-password', async (request, reply) => {
    const email = String(request.body?.email ?? '');
    const again = (errors: Record<string, string>, status: number) =>
      sendPage(reply, ForgotPasswordPage({ csrf: csrfToken(request, reply), email, errors }), status);
    const refusal = await limits.request(request.ip);
    if (refusal) {
      reply.headers(refusalHeaders(refusal));
      return again({ form: refusalMessage(refusal) }, 429);
    }
    try {
      // single sign-on only: no link for an account that may not use a password (the page answers the same)
      const account = (await passwordsOffNote(ctx)) ? await ctx.users.findByEmail(email) : undefined;
      if (!account || (await mayUsePassword(ctx, account))) await ctx.passwordResets.request(email);
    } catch (error) {
      return again(fieldErrors(error), 400);
    }
    return seeOther(reply, '/forgot-password/sent');
  });

  app.get('/forgot-password/sent', async (_request, reply) => sendPage(reply, ResetLinkSentPage()));

  app.get<TokenParams>('/reset-password/:token', async (request, reply) => {
    const account = await ctx.passwordResets.accountFor(request.params.token);
    if (!account) return sendPage(reply, ResetLinkExpiredPage(), EXPIRED_STATUS);
    if (!(await resetAllowed(account.email))) return passwordsOffPage(ctx, reply);
    const activeTokens = await ctx.tokens.countActive(account.userId);
    return sendPage(reply, ResetPasswordPage({ csrf: csrfToken(request, reply), token: request.params.token, email: account.email, activeTokens }));
  });

  app.post<TokenParams & { Body: { password?: string; revokeTokens?: string } }>('/reset-password/:token', async (request, reply) => {
    const { token } = request.params;
    const linked = await ctx.passwordResets.accountFor(token);
    if (linked && !(await resetAllowed(linked.email))) return passwordsOffPage(ctx, reply);
    let done: Awaited<ReturnType<typeof ctx.passwordResets.reset>>;
    try {
      done = await ctx.passwordResets.reset(token, String(request.body?.password ?? ''), { revokeTokens: revokeTokensTicked(request.body) });
    } catch (error) {
      if (error instanceof ProblemError && error.code === 'not_found') return sendPage(reply, ResetLinkExpiredPage(), EXPIRED_STATUS);
      return refused(request, reply, token, fieldErrors(error));
    }
    // every session of the account ended with the reset, this browser's too
    reply.clearCookie(cookie.name, { path: '/', httpOnly: true, sameSite: 'lax', secure: cookie.secure });
    // the link proved the mailbox: this browser is now known to the account, whatever the login limits say of others
    limits.proven(request, reply, done.email);
    request.log.info({ userId: done.userId, tokensRevoked: done.tokensRevoked }, 'password reset');
    const revoked = done.tokensRevoked === 0 ? '' : ` ${done.tokensRevoked} API token${done.tokensRevoked === 1 ? ' was' : 's were'} revoked.`;
    setFlash(reply, `Your password has been changed; log in with it.${revoked}`);
    return seeOther(reply, '/login');
  });

  /** A link sent before single sign-on only was turned on sets no password of a non-admin. */
  async function resetAllowed(email: string): Promise<boolean> {
    const user = await ctx.users.findByEmail(email);
    return user === undefined || (await mayUsePassword(ctx, user));
  }

  async function refused(request: FastifyRequest, reply: FastifyReply, token: string, errors: Record<string, string>) {
    const account = await ctx.passwordResets.accountFor(token);
    if (!account) return sendPage(reply, ResetLinkExpiredPage(), EXPIRED_STATUS);
    const activeTokens = await ctx.tokens.countActive(account.userId);
    return sendPage(reply, ResetPasswordPage({ csrf: csrfToken(request, reply), token, email: account.email, activeTokens, errors }), 400);
  }
}
