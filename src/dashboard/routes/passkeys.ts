import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import type { ActiveSession } from '../../services/sessions.js';
import { refusalHeaders } from '../../web/limiter.js';
import { type FieldErrors, fieldErrors } from '../field-errors.js';
import { setFlash } from '../flash.js';
import { frameFor } from '../frame.js';
import { type LoginLimits, refusalMessage } from '../login-limits.js';
import { PasskeyCeremonyCookie } from '../passkey-ceremony.js';
import { answerOf, PASSKEY_NEEDS_SCRIPT, PASSKEY_REFUSED } from '../passkey-words.js';
import { RecentProof } from '../recent-proof.js';
import { seeOther, sendPage } from '../render.js';
import { confirmSecondFactor } from '../second-factor-check.js';
import { accountOf, requireAccount, safeNext, type SessionCookie } from '../session.js';
import { mayUsePassword, PASSWORDS_OFF } from '../sso-only.js';
import type { Confirmation } from '../views/passkeys-page.js';
import { PasskeyPage, PasskeysPage } from '../views/passkeys-page.js';
import { secondFactorRequiredBy } from './two-factor.js';

type PasskeyParams = { Params: { passkeyId: string } };
interface PasskeyBody {
  name?: unknown;
  response?: unknown;
  next?: unknown;
  currentPassword?: unknown;
  code?: unknown;
}

const CONFIRM_FIRST = 'Confirm it is you first: it holds for 15 minutes.';
const CONFIRMED = 'Confirmed: for 15 minutes you can add and remove passkeys and make API tokens.';
const text = (value: unknown) => (typeof value === 'string' ? value : '');
// where a confirmation returns to: the page that asked for it (a passkey's own page, or the list)
const PASSKEY_PAGE = /^\/account\/passkeys\/([A-Za-z0-9_-]{16})$/;

/** The account's passkeys (issue 43, item 2): list, add (the ceremony needs script), rename, remove, and "confirm it is you". */
export function registerPasskeyRoutes(app: FastifyInstance, ctx: AppContext, cookie: SessionCookie, limits: LoginLimits): void {
  const ceremonies = new PasskeyCeremonyCookie(cookie.secure);
  const proof = new RecentProof(cookie.secure);

  const confirmationOf = async (request: FastifyRequest, account: ActiveSession): Promise<Confirmation> => {
    const factors = await ctx.twoFactor.factorsOf(account.user.id);
    return {
      recent: proof.isRecent(request, account),
      secondFactor: account.user.secondFactorAt !== null,
      app: factors.app,
      passkeys: factors.passkeys,
      // single sign-on only: a non-admin's password confirms nothing (sso-only.ts)
      hasPassword: account.user.passwordHash !== null && (await mayUsePassword(ctx, account.user)),
    };
  };

  const listPage = async (request: FastifyRequest, reply: FastifyReply, errors?: FieldErrors, status = 200) => {
    const account = accountOf(request);
    const [frame, passkeys, confirmation] = await Promise.all([
      frameFor(request, reply, ctx, { section: 'account' }),
      ctx.passkeys.list(account.user.id),
      confirmationOf(request, account),
    ]);
    const rp = ctx.passkeys.relyingParty();
    return sendPage(reply, PasskeysPage({ frame, passkeys, confirmation, unavailable: 'unavailable' in rp ? rp.unavailable : null, errors }), status);
  };

  /** Who requires a second factor when this passkey is the account's last one; null when removing it leaves one, or nobody requires it. */
  const lastRequiredBy = async (account: ActiveSession): Promise<string | null> => {
    const requiredBy = await secondFactorRequiredBy(ctx, account);
    if (!requiredBy) return null;
    const factors = await ctx.twoFactor.factorsOf(account.user.id);
    return !factors.app && factors.passkeys <= 1 ? requiredBy : null;
  };

  const passkeyPage = async (request: FastifyRequest, reply: FastifyReply, ref: string, errors?: FieldErrors, status = 200) => {
    const account = accountOf(request);
    const passkey = await ctx.passkeys.get(account.user.id, ref);
    const [frame, confirmation, required] = await Promise.all([
      frameFor(request, reply, ctx, { section: 'account' }),
      confirmationOf(request, account),
      lastRequiredBy(account),
    ]);
    return sendPage(reply, PasskeyPage({ frame, passkey, confirmation, lastRequiredBy: required, errors }), status);
  };

  /** The page a confirmation came from, shown again with its message. */
  const pageOf = (request: FastifyRequest, reply: FastifyReply, next: string, errors: FieldErrors, status: number) => {
    const ref = PASSKEY_PAGE.exec(next)?.[1];
    return ref ? passkeyPage(request, reply, ref, errors, status) : listPage(request, reply, errors, status);
  };

  app.get('/account/passkeys', { preHandler: requireAccount }, (request, reply) => listPage(request, reply));

  app.get('/account/passkeys/registration-options', { preHandler: requireAccount }, async (request, reply) => {
    const account = accountOf(request);
    if (!proof.isRecent(request, account)) return reply.code(403).header('cache-control', 'no-store').send({ detail: CONFIRM_FIRST });
    return ceremonies.sendOptions(reply, () => ctx.passkeys.registrationOptions(account.user));
  });

  app.post<{ Body: PasskeyBody }>('/account/passkeys', { preHandler: requireAccount }, async (request, reply) => {
    const account = accountOf(request);
    const { user, session } = account;
    if (!proof.isRecent(request, account)) return listPage(request, reply, { form: CONFIRM_FIRST }, 403);
    const answer = answerOf(request.body);
    if (answer === null) return listPage(request, reply, { form: PASSKEY_NEEDS_SCRIPT }, 400);
    const ceremony = ceremonies.take(request, reply);
    try {
      const passkey = await ctx.passkeys.register(user.id, ceremony, answer, text(request.body?.name));
      // the new passkey answered with the person verified: the session has just proved a second factor
      await ctx.sessions.proveSecondFactor(session.idHash);
      request.log.info({ userId: user.id, passkey: passkey.ref }, 'passkey added');
      setFlash(reply, `Passkey “${passkey.name}” added`);
      return seeOther(reply, '/account/passkeys');
    } catch (error) {
      const errors = fieldErrors(error);
      if (errors.response) errors.form ??= errors.response;
      return listPage(request, reply, errors, 400);
    }
  });

  // "Confirm with a passkey": for adding or removing passkeys here, and for making a token (second-factor-check.ts)
  app.get('/account/passkeys/confirm/options', { preHandler: requireAccount }, async (request, reply) => {
    const { user } = accountOf(request);
    return ceremonies.sendOptions(reply, () => ctx.passkeys.authenticationOptions('confirm', user.id));
  });

  app.post<{ Body: PasskeyBody }>('/account/passkeys/confirm', { preHandler: requireAccount }, async (request, reply) => {
    const { user, session } = accountOf(request);
    const next = safeNext(request.body?.next);
    const answer = answerOf(request.body);
    if (answer === null) return pageOf(request, reply, next, { form: PASSKEY_NEEDS_SCRIPT }, 400);
    const refusal = await limits.secondFactorAttempt(request, user.id);
    if (refusal) {
      reply.headers(refusalHeaders(refusal));
      return pageOf(request, reply, next, { form: refusalMessage(refusal) }, 429);
    }
    const ceremony = ceremonies.take(request, reply);
    const check = await ctx.passkeys.authenticate(ceremony?.userId === user.id ? ceremony : null, 'confirm', answer);
    if (!check.ok) {
      request.log.info({ userId: user.id, reason: check.reason }, 'passkey confirmation refused');
      return pageOf(request, reply, next, { form: PASSKEY_REFUSED[check.reason] }, 400);
    }
    await limits.secondFactorSucceeded(request, user.id);
    await ctx.sessions.proveSecondFactor(session.idHash);
    request.log.info({ userId: user.id, passkey: check.passkey.ref }, 'confirmed with a passkey');
    setFlash(reply, CONFIRMED);
    return seeOther(reply, next);
  });

  // an account with a second factor confirms with it; only one without gives its password
  app.post<{ Body: PasskeyBody }>('/account/passkeys/confirm/password', { preHandler: requireAccount }, async (request, reply) => {
    const account = accountOf(request);
    const next = safeNext(request.body?.next);
    if (account.user.secondFactorAt !== null) return pageOf(request, reply, next, { form: 'Your account has a second factor: confirm with it.' }, 400);
    if (!(await mayUsePassword(ctx, account.user))) return pageOf(request, reply, next, { form: PASSWORDS_OFF }, 403);
    const refusal = await limits.attempt(request, account.user.email);
    if (refusal) {
      reply.headers(refusalHeaders(refusal));
      return pageOf(request, reply, next, { currentPassword: refusalMessage(refusal) }, 429);
    }
    try {
      await ctx.users.confirmPassword(account.user.id, text(request.body?.currentPassword));
    } catch (error) {
      return pageOf(request, reply, next, fieldErrors(error), 400);
    }
    await limits.succeeded(request, reply, account.user.email);
    proof.passwordGiven(reply, account);
    setFlash(reply, CONFIRMED);
    return seeOther(reply, next);
  });

  app.post<{ Body: PasskeyBody }>('/account/passkeys/confirm/code', { preHandler: requireAccount }, async (request, reply) => {
    const next = safeNext(request.body?.next);
    const problem = await confirmSecondFactor(ctx, limits, request, reply, request.body?.code);
    if (problem) return pageOf(request, reply, next, problem.errors, problem.status);
    setFlash(reply, CONFIRMED);
    return seeOther(reply, next);
  });

  app.get<PasskeyParams>('/account/passkeys/:passkeyId', { preHandler: requireAccount }, (request, reply) =>
    passkeyPage(request, reply, request.params.passkeyId),
  );

  app.post<PasskeyParams & { Body: PasskeyBody }>('/account/passkeys/:passkeyId/rename', { preHandler: requireAccount }, async (request, reply) => {
    const { user } = accountOf(request);
    try {
      const renamed = await ctx.passkeys.rename(user.id, request.params.passkeyId, text(request.body?.name));
      setFlash(reply, `Passkey renamed “${renamed.name}”`);
      return seeOther(reply, '/account/passkeys');
    } catch (error) {
      return passkeyPage(request, reply, request.params.passkeyId, fieldErrors(error), 400);
    }
  });

  app.post<PasskeyParams>('/account/passkeys/:passkeyId/remove', { preHandler: requireAccount }, async (request, reply) => {
    const account = accountOf(request);
    const ref = request.params.passkeyId;
    await ctx.passkeys.get(account.user.id, ref); // another account's or none: the 404 page, before anything else
    if (!proof.isRecent(request, account)) return passkeyPage(request, reply, ref, { form: CONFIRM_FIRST }, 403);
    const requiredBy = await lastRequiredBy(account);
    if (requiredBy)
      return passkeyPage(request, reply, ref, { form: `${requiredBy} requires a second factor: add another one before you remove this passkey.` }, 409);
    const { removed, secondFactorLeft } = await ctx.passkeys.remove(account.user.id, ref);
    // no second factor left: no browser may skip one any more
    if (!secondFactorLeft) await ctx.rememberedBrowsers.forgetAll(account.user.id);
    request.log.info({ userId: account.user.id, passkey: removed.ref }, 'passkey removed');
    setFlash(reply, `Passkey “${removed.name}” removed. Remove it from the device or password manager that holds it too.`);
    return seeOther(reply, '/account/passkeys');
  });
}
