import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import type { PasskeySignInResult } from '../../metrics/metrics.js';
import { refusalHeaders } from '../../web/limiter.js';
import { setFlash } from '../flash.js';
import { csrfToken } from '../frame.js';
import { type LoginLimits, refusalMessage } from '../login-limits.js';
import { PasskeyCeremonyCookie } from '../passkey-ceremony.js';
import { answerOf, PASSKEY_NEEDS_SCRIPT, PASSKEY_REFUSED } from '../passkey-words.js';
import { seeOther, sendPage } from '../render.js';
import { safeNext } from '../session.js';
import { loginProvider } from '../sso-only.js';
import type { SignInFlow } from '../sign-in.js';
import { LoginPage } from '../views/auth-pages.js';
import { TwoFactorSignInPage } from '../views/two-factor-pages.js';
import { DISABLED } from './login.js';
import { anyoneMaySignUp } from './signup.js';

const SSO_ONLY = 'Signing in with a passkey is off on this installation, except for its admins: sign in with your provider.';

interface SignInBody {
  response?: unknown;
  next?: unknown;
  remember?: unknown;
}

/**
 * Signing in with a passkey (issue 43, item 2): alone, from the login page (any discoverable passkey
 * of this site: no address typed), or as the second step after a password. Refusals count against
 * the login limits of the client address (and of the account, on the second step); each outcome is
 * counted in `formgate_passkey_sign_ins_total{result}`.
 */
export function registerPasskeySignInRoutes(app: FastifyInstance, ctx: AppContext, signIn: SignInFlow, limits: LoginLimits): void {
  const ceremonies = new PasskeyCeremonyCookie(signIn.session.secure);
  const counted = (result: PasskeySignInResult) => ctx.metrics?.passkeySignIn(result);

  const loginPage = async (request: FastifyRequest, reply: FastifyReply, next: string, form: string, status: number) => {
    const page = LoginPage({
      csrf: csrfToken(request, reply),
      next,
      errors: { form },
      signupOpen: await anyoneMaySignUp(ctx),
      provider: await loginProvider(ctx, true),
      passkeys: ctx.passkeys.available(),
    });
    return sendPage(reply, page, status);
  };

  const secondStep = async (request: FastifyRequest, reply: FastifyReply, userId: string, form: string, status: number) => {
    const factors = await ctx.twoFactor.factorsOf(userId);
    const page = TwoFactorSignInPage({
      csrf: csrfToken(request, reply),
      codes: factors.app || factors.recoveryCodesLeft > 0,
      passkeys: factors.passkeys,
      errors: { form },
    });
    return sendPage(reply, page, status);
  };

  app.get('/login/passkey/options', async (_request, reply) => ceremonies.sendOptions(reply, () => ctx.passkeys.authenticationOptions('sign-in', null)));

  app.post<{ Body: SignInBody }>('/login/passkey', async (request, reply) => {
    const next = safeNext(request.body?.next);
    const answer = answerOf(request.body);
    if (answer === null) return loginPage(request, reply, next, PASSKEY_NEEDS_SCRIPT, 400);
    // counted before the answer is checked, given back when it signs in (as a password is)
    const refusal = await limits.request(request.ip);
    if (refusal) {
      counted('limited');
      reply.headers(refusalHeaders(refusal));
      return loginPage(request, reply, next, refusalMessage(refusal), 429);
    }
    const check = await ctx.passkeys.authenticate(ceremonies.take(request, reply), 'sign-in', answer);
    const user = check.ok ? await ctx.users.findById(check.userId) : undefined;
    if (!check.ok || !user) {
      const reason = check.ok ? 'unknown' : check.reason;
      counted(reason);
      request.log.info({ reason }, 'passkey sign-in refused');
      return loginPage(request, reply, next, PASSKEY_REFUSED[reason], 400);
    }
    if (user.disabledAt !== null) {
      counted('disabled');
      return loginPage(request, reply, next, DISABLED, 403);
    }
    // single sign-on only: a passkey alone is a way around the provider, as a password is; the admins keep theirs
    if (!(await ctx.oidcSettings.passwordAllowed(user))) {
      counted('sso_only');
      return loginPage(request, reply, next, SSO_ONLY, 403);
    }
    await limits.succeeded(request, reply, user.email);
    counted('signed_in');
    request.log.info({ userId: user.id, passkey: check.passkey.ref }, 'signed in with a passkey');
    return signIn.signInWithPasskey(request, reply, user, next);
  });

  // the second step of a sign-in: the passkeys of the account whose password was right
  app.get('/login/two-factor/passkey/options', async (request, reply) => {
    const pending = signIn.pending(request);
    if (!pending) return seeOther(reply, '/login');
    return ceremonies.sendOptions(reply, () => ctx.passkeys.authenticationOptions('second-factor', pending.userId));
  });

  app.post<{ Body: SignInBody }>('/login/two-factor/passkey', async (request, reply) => {
    const pending = signIn.pending(request);
    if (!pending) {
      setFlash(reply, 'That sign-in took too long: enter your password again.', 'warning');
      return seeOther(reply, '/login');
    }
    const user = await ctx.users.findById(pending.userId);
    if (!user) return seeOther(reply, '/login');
    if (user.disabledAt !== null) return secondStep(request, reply, user.id, DISABLED, 403);
    const answer = answerOf(request.body);
    if (answer === null) return secondStep(request, reply, user.id, PASSKEY_NEEDS_SCRIPT, 400);
    const refusal = await limits.secondFactorAttempt(request, user.id);
    if (refusal) {
      counted('limited');
      reply.headers(refusalHeaders(refusal));
      return secondStep(request, reply, user.id, refusalMessage(refusal), 429);
    }
    const ceremony = ceremonies.take(request, reply);
    const check = await ctx.passkeys.authenticate(ceremony?.userId === user.id ? ceremony : null, 'second-factor', answer);
    if (!check.ok) {
      counted(check.reason);
      request.log.info({ userId: user.id, reason: check.reason }, 'passkey as second factor refused');
      return secondStep(request, reply, user.id, PASSKEY_REFUSED[check.reason], 400);
    }
    await limits.secondFactorSucceeded(request, user.id);
    counted('second_factor');
    request.log.info({ userId: user.id, passkey: check.passkey.ref }, 'second factor proved with a passkey');
    return signIn.completeSecondFactor(request, reply, user, pending, 'passkey', request.body?.remember === '1');
  });
}
