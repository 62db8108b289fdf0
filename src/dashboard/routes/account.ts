import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isTimeZone } from '../../domain/time-zones.js';
import type { AppContext } from '../../context.js';
import { type FieldErrors, fieldErrors } from '../field-errors.js';
import { setFlash } from '../flash.js';
import { frameFor } from '../frame.js';
import { type LoginLimits, refusalMessage } from '../login-limits.js';
import { seeOther, sendPage } from '../render.js';
import { accountOf, endSession, requireAccount, type SessionCookie } from '../session.js';
import { TZ_COOKIE } from '../time-zone.js';
import { AccountPage } from '../views/account-page.js';
import { revokeTokensTicked } from '../views/revoke-tokens-check.js';
import { refusalHeaders } from '../../web/limiter.js';
import { passwordsOffFor } from '../sso-only.js';
import { PageError } from '../page-error.js';

interface PasswordBody {
  currentPassword?: string;
  newPassword?: string;
  revokeTokens?: string;
}

/** The zone the browser said (its cookie), when it is one this server knows. */
function browserZone(request: FastifyRequest): string | null {
  const zone = request.cookies?.[TZ_COOKIE];
  return isTimeZone(zone) ? zone : null;
}

/** What the account page counts: live sessions, active tokens, second factors; and whether single sign-on only takes its password away. */
async function accountFacts(ctx: AppContext, user: { id: string; isAdmin: number }) {
  const userId = user.id;
  const [sessions, activeTokens, signingIn, passwordsOff] = await Promise.all([
    ctx.sessions.countLive(userId),
    ctx.tokens.countActive(userId),
    ctx.twoFactor.factorsOf(userId),
    passwordsOffFor(ctx, user),
  ]);
  return { sessions, activeTokens, signingIn, passwordsOff };
}

/** "Password changed" and, when the box was ticked, how many tokens went with it. */
function revokedNote(count: number): string {
  return count === 0 ? '' : `; ${count} API token${count === 1 ? '' : 's'} revoked`;
}

export function registerAccountRoutes(app: FastifyInstance, ctx: AppContext, cookie: SessionCookie, limits: LoginLimits): void {
  app.get('/account', { preHandler: requireAccount }, async (request, reply) => {
    const { user } = accountOf(request);
    const frame = await frameFor(request, reply, ctx, { section: 'account' });
    const facts = await accountFacts(ctx, user);
    return sendPage(reply, AccountPage({ frame, email: user.email, ...facts, timeZone: user.timeZone, browserZone: browserZone(request) }));
  });

  // The zone every time of the dashboard is shown in; none: the browser's.
  app.post<{ Body: { timeZone?: unknown } }>('/account/time-zone', { preHandler: requireAccount }, async (request, reply) => {
    const { user } = accountOf(request);
    const asked = typeof request.body?.timeZone === 'string' ? request.body.timeZone : '';
    try {
      const saved = await ctx.timeZoneSetting.set(user.id, asked);
      setFlash(reply, saved === null ? 'Times are shown in your browser’s time zone' : `Times are shown in ${saved}`);
      return seeOther(reply, '/account');
    } catch (error) {
      const errors = fieldErrors(error);
      const frame = await frameFor(request, reply, ctx, { section: 'account' });
      const facts = await accountFacts(ctx, user);
      return sendPage(
        reply,
        AccountPage({ frame, email: user.email, ...facts, timeZone: user.timeZone, browserZone: browserZone(request), zoneErrors: errors }),
        400,
      );
    }
  });

  // A changed password ends the account's other sessions (whoever knew the old one) and keeps this one.
  // Wrong current passwords count as failed logins: a borrowed session cannot guess the password either.
  app.post<{ Body: PasswordBody }>('/account/password', { preHandler: requireAccount }, async (request, reply) => {
    const { user, session } = accountOf(request);
    const passwordsOff = await passwordsOffFor(ctx, user);
    if (passwordsOff) throw new PageError(403, 'Single sign-on only', passwordsOff);
    const refused = async (errors: FieldErrors, status: number) => {
      const frame = await frameFor(request, reply, ctx, { section: 'account' });
      const facts = await accountFacts(ctx, user);
      return sendPage(reply, AccountPage({ frame, email: user.email, ...facts, errors, timeZone: user.timeZone, browserZone: browserZone(request) }), status);
    };
    const refusal = await limits.attempt(request, user.email);
    if (refusal) {
      reply.headers(refusalHeaders(refusal));
      return refused({ currentPassword: refusalMessage(refusal) }, 429);
    }
    let changed: { tokensRevoked: number };
    try {
      changed = await ctx.users.changePassword(user.id, String(request.body?.currentPassword ?? ''), String(request.body?.newPassword ?? ''), {
        revokeTokens: revokeTokensTicked(request.body),
      });
    } catch (error) {
      const errors = fieldErrors(error);
      if (!errors.currentPassword) await limits.succeeded(request, reply, user.email);
      return refused(errors, 400);
    }
    await limits.succeeded(request, reply, user.email);
    await ctx.sessions.endAllExcept(user.id, session.idHash);
    request.log.info({ userId: user.id, tokensRevoked: changed.tokensRevoked }, 'password changed');
    setFlash(reply, `Password changed${revokedNote(changed.tokensRevoked)}`);
    return seeOther(reply, '/account');
  });

  // Tokens first: if the sessions' end failed, the owner is still logged in to try again.
  app.post<{ Body: { revokeTokens?: string } }>('/account/logout-everywhere', { preHandler: requireAccount }, async (request, reply) => {
    const { user } = accountOf(request);
    const tokensRevoked = revokeTokensTicked(request.body) ? await ctx.tokens.revokeAll(user.id) : 0;
    const sessionsEnded = await ctx.sessions.endAll(user.id);
    await endSession(request, reply, ctx.sessions, cookie);
    request.log.info({ userId: user.id, sessionsEnded, tokensRevoked }, 'logged out everywhere');
    setFlash(reply, `You are logged out everywhere${revokedNote(tokensRevoked)}.`);
    return seeOther(reply, '/login');
  });
}
