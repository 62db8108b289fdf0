import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { setFlash, takeFlash } from '../flash.js';
import { csrfToken } from '../frame.js';
import { type LoginLimits, refusalMessage } from '../login-limits.js';
import { seeOther, sendPage } from '../render.js';
import { endSession, safeNext, type SessionCookie, startSession } from '../session.js';
import { LoginPage } from '../views/auth-pages.js';
import { anyoneMaySignUp } from './signup.js';
import { refusalHeaders } from '../../web/limiter.js';

interface LoginBody {
  email?: string;
  password?: string;
  next?: string;
}

// The same words for an unknown address and a wrong password: the page tells no one who has an account.
const REFUSED = 'The email address or the password is not right.';
// said only to whoever gave the right password
const DISABLED = 'This account is disabled by the installation’s admin: it cannot log in.';

export function registerLoginRoutes(app: FastifyInstance, ctx: AppContext, cookie: SessionCookie, limits: LoginLimits): void {
  app.get<{ Querystring: { next?: string } }>('/login', async (request, reply) => {
    if (request.account) return seeOther(reply, safeNext(request.query.next));
    // a fresh installation opens on creating its first account
    if (await ctx.setup.open()) return seeOther(reply, '/setup');
    return sendPage(
      reply,
      LoginPage({
        csrf: csrfToken(request, reply),
        next: safeNext(request.query.next),
        flash: takeFlash(request, reply),
        signupOpen: await anyoneMaySignUp(ctx),
      }),
    );
  });

  app.post<{ Body: LoginBody }>('/login', async (request, reply) => {
    const email = String(request.body?.email ?? '');
    const password = String(request.body?.password ?? '');
    const next = safeNext(request.body?.next);
    const again = async (form: string, status: number) =>
      sendPage(reply, LoginPage({ csrf: csrfToken(request, reply), email, next, errors: { form }, signupOpen: await anyoneMaySignUp(ctx) }), status);
    if (!email || !password) return again('Enter your email address and your password.', 400);
    // counted before the password is checked, and the same for an address no account has
    const refusal = await limits.attempt(request, email);
    if (refusal) {
      reply.headers(refusalHeaders(refusal));
      return again(refusalMessage(refusal), 429);
    }
    const user = await ctx.users.authenticate(email, password);
    if (!user) return again(REFUSED, 400);
    if (user.disabledAt !== null) return again(DISABLED, 403);
    await limits.succeeded(request, reply, email);
    await startSession(request, reply, ctx.sessions, cookie, user.id);
    return seeOther(reply, next);
  });

  app.post('/logout', async (request, reply) => {
    await endSession(request, reply, ctx.sessions, cookie);
    setFlash(reply, 'You are logged out.');
    return seeOther(reply, '/login');
  });
}
