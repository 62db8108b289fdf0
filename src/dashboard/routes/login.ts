import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { setFlash, takeFlash } from '../flash.js';
import { csrfToken } from '../frame.js';
import { type LoginLimits, refusalMessage } from '../login-limits.js';
import { seeOther, sendPage } from '../render.js';
import { endSession, safeNext } from '../session.js';
import type { SignInFlow } from '../sign-in.js';
import { LoginPage } from '../views/auth-pages.js';
import { anyoneMaySignUp } from './signup.js';
import { loginProvider, PASSWORDS_OFF } from '../sso-only.js';
import { refusalHeaders } from '../../web/limiter.js';

interface LoginBody {
  email?: string;
  password?: string;
  next?: string;
}

// The same words for an unknown address and a wrong password: the page tells no one who has an account.
const REFUSED = 'The email address or the password is not right.';
// said only to whoever gave the right password
export const DISABLED = 'This account is disabled by the installation’s admin: it cannot log in.';

export function registerLoginRoutes(app: FastifyInstance, ctx: AppContext, signIn: SignInFlow, limits: LoginLimits): void {
  app.get<{ Querystring: { next?: string; admin?: string } }>('/login', async (request, reply) => {
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
        provider: await loginProvider(ctx, request.query.admin !== undefined),
        passkeys: ctx.passkeys.available(),
      }),
    );
  });

  app.post<{ Body: LoginBody }>('/login', async (request, reply) => {
    const email = String(request.body?.email ?? '');
    const password = String(request.body?.password ?? '');
    const next = safeNext(request.body?.next);
    const again = async (form: string, status: number) =>
      sendPage(
        reply,
        LoginPage({
          csrf: csrfToken(request, reply),
          email,
          next,
          errors: { form },
          signupOpen: await anyoneMaySignUp(ctx),
          provider: await loginProvider(ctx, true),
          passkeys: ctx.passkeys.available(),
        }),
        status,
      );
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
    // single sign-on only: the instance admins alone sign in by password (the break-glass accounts)
    if (!(await ctx.oidcSettings.passwordAllowed(user))) return again(PASSWORDS_OFF, 403);
    await limits.succeeded(request, reply, email);
    return signIn.afterFirstFactor(request, reply, user, next, 'password');
  });

  app.post('/logout', async (request, reply) => {
    await endSession(request, reply, ctx.sessions, signIn.session);
    setFlash(reply, 'You are logged out.');
    return seeOther(reply, '/login');
  });
}
