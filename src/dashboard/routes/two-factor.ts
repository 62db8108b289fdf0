import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import type { ActiveSession } from '../../services/sessions.js';
import { refusalHeaders } from '../../web/limiter.js';
import { type FieldErrors, fieldErrors } from '../field-errors.js';
import { setFlash } from '../flash.js';
import { csrfToken, frameFor } from '../frame.js';
import { type LoginLimits, refusalMessage } from '../login-limits.js';
import { seeOther, sendPage } from '../render.js';
import { accountOf, requireAccount } from '../session.js';
import type { SignInFlow } from '../sign-in.js';
import { AppSetupPage, RecoveryCodesPage, TwoFactorSettingsPage, TwoFactorSignInPage } from '../views/two-factor-pages.js';

interface CodeBody {
  code?: unknown;
  remember?: unknown;
  setup?: unknown;
}

const WRONG_CODE = 'That code is not right, or it was used already. Type the 6 digits your app shows now, or an unused recovery code.';
const DISABLED = 'This account is disabled by the installation’s admin: it cannot log in.';

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** Who requires the account to have a second factor, in words for its page; null when nobody does. */
export async function secondFactorRequiredBy(ctx: AppContext, account: ActiveSession): Promise<string | null> {
  if (ctx.instance.requireTwoFactor()) return 'The installation’s admin';
  const workspaces = await ctx.team.requiringSecondFactor(account.user.id);
  if (workspaces.length === 0) return null;
  return workspaces.length === 1 ? `The workspace “${workspaces[0]}”` : 'Workspaces you belong to';
}

/** The second step of signing in, and the account's page for its authenticator app and recovery codes (issue 43, item 1). */
export function registerTwoFactorRoutes(app: FastifyInstance, ctx: AppContext, signIn: SignInFlow, limits: LoginLimits): void {
  const signInStep = async (request: FastifyRequest, reply: FastifyReply, userId: string, errors?: FieldErrors, status = 200) => {
    const factors = await ctx.twoFactor.factorsOf(userId);
    const page = TwoFactorSignInPage({
      csrf: csrfToken(request, reply),
      codes: factors.app || factors.recoveryCodesLeft > 0,
      passkeys: factors.passkeys,
      errors,
    });
    return sendPage(reply, page, status);
  };

  app.get('/login/two-factor', async (request, reply) => {
    if (request.account) return seeOther(reply, '/');
    const pending = signIn.pending(request);
    if (!pending) return seeOther(reply, '/login');
    return signInStep(request, reply, pending.userId);
  });

  app.post<{ Body: CodeBody }>('/login/two-factor', async (request, reply) => {
    const pending = signIn.pending(request);
    if (!pending) {
      setFlash(reply, 'That sign-in took too long: enter your password again.');
      return seeOther(reply, '/login');
    }
    const user = await ctx.users.findById(pending.userId);
    if (!user) return seeOther(reply, '/login');
    if (user.disabledAt !== null) return signInStep(request, reply, user.id, { form: DISABLED }, 403);
    const refusal = await limits.secondFactorAttempt(request, user.id);
    if (refusal) {
      ctx.metrics?.secondFactorRefused();
      reply.headers(refusalHeaders(refusal));
      return signInStep(request, reply, user.id, { code: refusalMessage(refusal) }, 429);
    }
    const kind = await ctx.twoFactor.verify(user.id, text(request.body?.code));
    if (!kind) {
      ctx.metrics?.secondFactorRefused();
      request.log.info({ userId: user.id }, 'second factor refused');
      return signInStep(request, reply, user.id, { code: WRONG_CODE }, 400);
    }
    await limits.secondFactorSucceeded(request, user.id);
    return signIn.completeSecondFactor(request, reply, user, pending, kind, request.body?.remember === '1');
  });

  app.post('/login/two-factor/cancel', async (_request, reply) => {
    signIn.dropPending(reply);
    return seeOther(reply, '/login');
  });

  const settingsPage = async (request: FastifyRequest, reply: FastifyReply, errors?: FieldErrors, errorsOf?: 'codes' | 'off', status = 200) => {
    const account = accountOf(request);
    const [frame, factors, rememberedBrowsers, requiredBy] = await Promise.all([
      frameFor(request, reply, ctx, { section: 'account' }),
      ctx.twoFactor.factorsOf(account.user.id),
      ctx.rememberedBrowsers.count(account.user.id),
      secondFactorRequiredBy(ctx, account),
    ]);
    const page = TwoFactorSettingsPage({ frame, factors, rememberedBrowsers, requiredBy, errors, errorsOf });
    return sendPage(reply, page, status);
  };

  app.get('/account/two-factor', { preHandler: requireAccount }, async (request, reply) => settingsPage(request, reply));

  app.get('/account/two-factor/app', { preHandler: requireAccount }, async (request, reply) => {
    const { user } = accountOf(request);
    const frame = await frameFor(request, reply, ctx, { section: 'account' });
    return sendPage(reply, AppSetupPage({ frame, setup: await ctx.twoFactor.startAppSetup(user.id, user.email) }));
  });

  // compress: false on every answer that shows recovery codes (dashboard/plugin.ts, BREACH)
  app.post<{ Body: CodeBody }>('/account/two-factor/app', { preHandler: requireAccount, compress: false }, async (request, reply) => {
    const { user, session } = accountOf(request);
    const sealedSecret = text(request.body?.setup);
    const refusal = await limits.secondFactorAttempt(request, user.id);
    try {
      if (refusal) {
        reply.headers(refusalHeaders(refusal));
        throw Object.assign(new Error('limited'), { refusal });
      }
      const codes = await ctx.twoFactor.enableApp(user.id, sealedSecret, text(request.body?.code));
      await limits.secondFactorSucceeded(request, user.id);
      await ctx.sessions.proveSecondFactor(session.idHash);
      request.log.info({ userId: user.id }, 'authenticator app turned on');
      const frame = await frameFor(request, reply, ctx, { section: 'account' });
      return sendPage(reply, RecoveryCodesPage({ frame, codes, fresh: true }));
    } catch (error) {
      const setup = (await ctx.twoFactor.resumeAppSetup(user.id, user.email, sealedSecret)) ?? (await ctx.twoFactor.startAppSetup(user.id, user.email));
      const errors = refusal ? { code: refusalMessage(refusal) } : fieldErrors(error);
      const frame = await frameFor(request, reply, ctx, { section: 'account' });
      return sendPage(reply, AppSetupPage({ frame, setup, errors }), refusal ? 429 : 400);
    }
  });

  /** Checks the code of a change to the account's factors; answers with the page and its message when it is not right. */
  const confirmCode = async (request: FastifyRequest<{ Body: CodeBody }>, reply: FastifyReply, form: 'codes' | 'off'): Promise<boolean> => {
    const { user, session } = accountOf(request);
    const refusal = await limits.secondFactorAttempt(request, user.id);
    if (refusal) {
      reply.headers(refusalHeaders(refusal));
      await settingsPage(request, reply, { code: refusalMessage(refusal) }, form, 429);
      return false;
    }
    if (!(await ctx.twoFactor.verify(user.id, text(request.body?.code)))) {
      await settingsPage(request, reply, { code: WRONG_CODE }, form, 400);
      return false;
    }
    await limits.secondFactorSucceeded(request, user.id);
    await ctx.sessions.proveSecondFactor(session.idHash);
    return true;
  };

  app.post<{ Body: CodeBody }>('/account/two-factor/recovery-codes', { preHandler: requireAccount, compress: false }, async (request, reply) => {
    const { user } = accountOf(request);
    if (!(await confirmCode(request, reply, 'codes'))) return reply;
    const codes = await ctx.twoFactor.newRecoveryCodes(user.id);
    request.log.info({ userId: user.id }, 'recovery codes made anew');
    const frame = await frameFor(request, reply, ctx, { section: 'account' });
    return sendPage(reply, RecoveryCodesPage({ frame, codes, fresh: false }));
  });

  app.post<{ Body: CodeBody }>('/account/two-factor/off', { preHandler: requireAccount }, async (request, reply) => {
    const account = accountOf(request);
    const factors = await ctx.twoFactor.factorsOf(account.user.id);
    const requiredBy = await secondFactorRequiredBy(ctx, account);
    // the last factor of an account that must have one stays: set up a passkey first
    if (requiredBy && factors.passkeys === 0) {
      return settingsPage(request, reply, { form: `${requiredBy} requires a second factor: add a passkey before you turn the app off.` }, 'off', 409);
    }
    if (!(await confirmCode(request, reply, 'off'))) return reply;
    await ctx.twoFactor.disableApp(account.user.id);
    if (factors.passkeys === 0) await ctx.rememberedBrowsers.forgetAll(account.user.id);
    request.log.info({ userId: account.user.id }, 'authenticator app turned off');
    setFlash(reply, 'The authenticator app is off, and its recovery codes no longer work.');
    return seeOther(reply, '/account/two-factor');
  });

  app.post('/account/two-factor/forget-browsers', { preHandler: requireAccount }, async (request, reply) => {
    const { user } = accountOf(request);
    const forgotten = await ctx.rememberedBrowsers.forgetAll(user.id);
    request.log.info({ userId: user.id, forgotten }, 'remembered browsers forgotten');
    setFlash(reply, 'No browser skips the second factor now.');
    return seeOther(reply, '/account/two-factor');
  });
}
