import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config/config.js';
import type { ActiveSession, SessionService } from '../services/sessions.js';
import { seeOther } from './render.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The logged-in person on a dashboard page, or null. */
    account: ActiveSession | null;
  }
}

export interface SessionCookie {
  name: string;
  secure: boolean;
}

/** `__Host-` (Secure, whole site, no Domain) when the public URL is https; plain on http, where a Secure cookie would never come back. */
export function sessionCookie(config: Pick<Config, 'publicUrl'>): SessionCookie {
  const secure = config.publicUrl.startsWith('https:');
  return { name: secure ? '__Host-fg_session' : 'fg_session', secure };
}

/**
 * Reads the session cookie of every dashboard request into `request.account`, with whether the
 * account must set up a second factor first (`requireTwoFactor`: the admin's rule for everyone).
 */
export function installSessions(app: FastifyInstance, sessions: SessionService, cookie: SessionCookie, requireTwoFactor: () => boolean): void {
  app.decorateRequest('account', null);
  app.addHook('onRequest', async (request) => {
    const secret = request.cookies[cookie.name];
    if (!secret) return;
    const account = await sessions.resolve(secret);
    if (account) account.mustSetUpSecondFactor = account.user.secondFactorAt === null && (account.secondFactorRequiredByWorkspace || requireTwoFactor());
    request.account = account;
  });
}

// What an account that must set up a second factor may still reach: the pages that set one up.
const SECOND_FACTOR_SET_UP = /^\/account\/(?:two-factor|passkeys)(?:[/?]|$)/;

/** Starts a session at login, replacing any the browser came with (a planted cookie never becomes a login). */
export async function startSession(
  request: FastifyRequest,
  reply: FastifyReply,
  sessions: SessionService,
  cookie: SessionCookie,
  userId: string,
  secondFactor = false,
): Promise<void> {
  const old = request.cookies[cookie.name];
  if (old) await sessions.end(old);
  const { secret, expiresAt } = await sessions.start(userId, { userAgent: request.headers['user-agent'] ?? null, ip: request.ip, secondFactor });
  reply.setCookie(cookie.name, secret, { path: '/', httpOnly: true, sameSite: 'lax', secure: cookie.secure, expires: new Date(expiresAt) });
}

/** Ends the browser's session and forgets its cookie. */
export async function endSession(request: FastifyRequest, reply: FastifyReply, sessions: SessionService, cookie: SessionCookie): Promise<void> {
  const secret = request.cookies[cookie.name];
  if (secret) await sessions.end(secret);
  reply.clearCookie(cookie.name, { path: '/', httpOnly: true, sameSite: 'lax', secure: cookie.secure });
}

/**
 * preHandler of every page behind the login: without a session, a GET goes to the login page and
 * comes back here afterwards; a change (whose form may have outlived its session) goes to the login page.
 */
export async function requireAccount(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (request.account?.mustSetUpSecondFactor && !SECOND_FACTOR_SET_UP.test(request.url)) return seeOther(reply, '/account/two-factor');
  if (request.account) return;
  const back = request.method === 'GET' ? `?next=${encodeURIComponent(request.url)}` : '';
  await seeOther(reply, `/login${back}`);
}

/** The logged-in account of a page behind `requireAccount`. */
export function accountOf(request: FastifyRequest): ActiveSession {
  if (!request.account) throw new Error('page has no requireAccount preHandler');
  return request.account;
}

/** Where to go after logging in: a path of this site only, never another host (`//evil`, `/\\evil`). */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string' || !/^\/(?![/\\])[\x21-\x7e]*$/.test(next) || next.length > 2000) return '/';
  return next;
}

/** What a CSRF token is bound to: the session (its hash), or "anonymous" on the pages before login. */
export function csrfUserInfo(request: FastifyRequest): string {
  return request.account?.session.idHash ?? 'anonymous';
}
