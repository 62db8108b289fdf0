import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { setFlash, takeFlash } from '../flash.js';
import { csrfToken } from '../frame.js';
import { seeOther, sendPage } from '../render.js';
import { endSession, safeNext, type SessionCookie, startSession } from '../session.js';
import { LoginPage } from '../views/auth-pages.js';
import { anyoneMaySignUp } from './signup.js';

interface LoginBody {
  email?: string;
  password?: string;
  next?: string;
}

// The same words for an unknown address and a wrong password: the page tells no one who has an account.
const REFUSED = 'The email address or the password is not right.';

export function registerLoginRoutes(app: FastifyInstance, ctx: AppContext, cookie: SessionCookie): void {
  app.get<{ Querystring: { next?: string } }>('/login', async (request, reply) => {
    if (request.account) return seeOther(reply, safeNext(request.query.next));
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
    const user = email && password ? await ctx.users.authenticate(email, password) : null;
    if (!user) {
      const errors = email && password ? { form: REFUSED } : { form: 'Enter your email address and your password.' };
      return sendPage(reply, LoginPage({ csrf: csrfToken(request, reply), email, next, errors, signupOpen: await anyoneMaySignUp(ctx) }), 400);
    }
    await startSession(request, reply, ctx.sessions, cookie, user.id);
    return seeOther(reply, next);
  });

  app.post('/logout', async (request, reply) => {
    await endSession(request, reply, ctx.sessions, cookie);
    setFlash(reply, 'You are logged out.');
    return seeOther(reply, '/login');
  });
}
