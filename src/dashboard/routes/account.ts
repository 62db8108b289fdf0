import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { type FieldErrors, fieldErrors } from '../field-errors.js';
import { setFlash } from '../flash.js';
import { frameFor } from '../frame.js';
import { type LoginLimits, refusalMessage } from '../login-limits.js';
import { seeOther, sendPage } from '../render.js';
import { accountOf, endSession, requireAccount, type SessionCookie } from '../session.js';
import { AccountPage } from '../views/account-page.js';

interface PasswordBody {
  currentPassword?: string;
  newPassword?: string;
}

export function registerAccountRoutes(app: FastifyInstance, ctx: AppContext, cookie: SessionCookie, limits: LoginLimits): void {
  app.get('/account', { preHandler: requireAccount }, async (request, reply) => {
    const { user } = accountOf(request);
    const frame = await frameFor(request, reply, ctx, { section: 'account' });
    return sendPage(reply, AccountPage({ frame, email: user.email, sessions: await ctx.sessions.countLive(user.id) }));
  });

  // A changed password ends the account's other sessions (whoever knew the old one) and keeps this one.
  // Wrong current passwords count as failed logins: a borrowed session cannot guess the password either.
  app.post<{ Body: PasswordBody }>('/account/password', { preHandler: requireAccount }, async (request, reply) => {
    const { user, session } = accountOf(request);
    const refused = async (errors: FieldErrors, status: number) => {
      const frame = await frameFor(request, reply, ctx, { section: 'account' });
      return sendPage(reply, AccountPage({ frame, email: user.email, sessions: await ctx.sessions.countLive(user.id), errors }), status);
    };
    const refusal = await limits.attempt(user.email, request.ip);
    if (refusal) {
      reply.header('retry-after', String(refusal.retryAfterSeconds));
      return refused({ currentPassword: refusalMessage(refusal) }, 429);
    }
    try {
      await ctx.users.changePassword(user.id, String(request.body?.currentPassword ?? ''), String(request.body?.newPassword ?? ''));
    } catch (error) {
      const errors = fieldErrors(error);
      if (!errors.currentPassword) await limits.succeeded(user.email, request.ip);
      return refused(errors, 400);
    }
    await limits.succeeded(user.email, request.ip);
    await ctx.sessions.endAllExcept(user.id, session.idHash);
    setFlash(reply, 'Password changed');
    return seeOther(reply, '/account');
  });

  app.post('/account/logout-everywhere', { preHandler: requireAccount }, async (request, reply) => {
    const { user } = accountOf(request);
    await ctx.sessions.endAll(user.id);
    await endSession(request, reply, ctx.sessions, cookie);
    setFlash(reply, 'You are logged out everywhere.');
    return seeOther(reply, '/login');
  });
}
