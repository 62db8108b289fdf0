import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import type { OidcSignInResult } from '../../metrics/metrics.js';
import { OidcError, type ProviderIdentity } from '../../services/oidc-client.js';
import type { OidcSetup } from '../../services/oidc-settings.js';
import { refusalHeaders } from '../../web/limiter.js';
import { setFlash } from '../flash.js';
import { csrfToken } from '../frame.js';
import { type LoginLimits, refusalMessage } from '../login-limits.js';
import { type OidcFlow, OidcCookies } from '../oidc-cookies.js';
import { seeOther, sendPage } from '../render.js';
import { accountOf, requireAccount, safeNext } from '../session.js';
import type { SignInFlow } from '../sign-in.js';
import { DISABLED, type Failure, refusalWords } from '../oidc-refusals.js';
import { LinkAccountPage, SignInRefusedPage } from '../views/oidc-pages.js';

/** A confirmation asks the provider for a sign-in at most this old (seconds): making an API token without a password. */
const CONFIRM_MAX_AGE_S = 600;

/**
 * Single sign-on's pages (issue 43, item 3): `/login/oidc` sends the browser to the provider,
 * `/login/oidc/callback` takes it back (state, nonce and PKCE verifier in a signed cookie), finds
 * the account and hands it to the sign-in flow, which asks the second factor when the account has
 * one; `/login/oidc/link` asks an existing account's password once; `/login/oidc/confirm` has a
 * signed-in person sign in at the provider again, in place of a password they do not use.
 */
export function registerOidcRoutes(app: FastifyInstance, ctx: AppContext, signIn: SignInFlow, limits: LoginLimits): void {
  const cookies = new OidcCookies(signIn.session);
  const count = (result: OidcSignInResult) => ctx.metrics?.oidcSignIn(result);

  app.get<{ Querystring: { next?: string } }>('/login/oidc', async (request, reply) => {
    const next = safeNext(request.query.next);
    if (request.account) return seeOther(reply, next);
    // the first account is made on the setup page, never by a provider: it becomes the instance admin
    if (await ctx.setup.open()) return seeOther(reply, '/setup');
    const setup = await ctx.oidcSettings.setup();
    if (!setup) return notSetUp(reply);
    return toProvider(request, reply, setup, { next, purpose: 'sign-in', session: null });
  });

  app.get<{ Querystring: { next?: string } }>('/login/oidc/confirm', { preHandler: requireAccount }, async (request, reply) => {
    const setup = await ctx.oidcSettings.setup();
    if (!setup) return notSetUp(reply);
    const session = accountOf(request).session.idHash;
    return toProvider(request, reply, setup, { next: safeNext(request.query.next), purpose: 'confirm', session });
  });

  app.get('/login/oidc/callback', async (request, reply) => {
    const flow = cookies.takeFlow(request, reply);
    const setup = await ctx.oidcSettings.setup();
    if (!setup) return notSetUp(reply);
    if (!flow) return refused(request, reply, setup, 'invalid_callback', 'no sign-in under way in this browser');
    let identity: ProviderIdentity;
    try {
      const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
      const maxAge = flow.purpose === 'confirm' ? CONFIRM_MAX_AGE_S : undefined;
      identity = await ctx.oidcClient.finish(setup, ctx.oidcSettings.redirectUri(), query, { ...flow, maxAge });
    } catch (error) {
      if (!(error instanceof OidcError)) throw error;
      return refused(request, reply, setup, error.reason, error.message);
    }
    if (flow.purpose === 'confirm') return confirmed(request, reply, setup, identity, flow);
    const resolution = await ctx.oidcAccounts.resolve(identity, setup);
    if (resolution.kind === 'refused') return refused(request, reply, setup, resolution.reason, 'no account for this person', identity);
    if (resolution.kind === 'needs_password') {
      const grants = ctx.oidcAccounts.grantsFor(identity, setup);
      cookies.setLink(reply, {
        userId: resolution.user.id,
        email: identity.email!,
        issuer: identity.issuer,
        subject: identity.subject,
        grants,
        next: flow.next,
      });
      count('link_asked');
      request.log.info(
        { result: 'link_asked', issuer: identity.issuer, userId: resolution.user.id },
        'oidc sign-in: the account’s password is asked once to link it',
      );
      return seeOther(reply, '/login/oidc/link');
    }
    const { user, how } = resolution;
    // a new account had the rules applied as it was made
    const granted = how === 'created' ? [] : await ctx.oidcAccounts.applyRules(user, identity, setup);
    count(how);
    request.log.info({ result: how, issuer: identity.issuer, userId: user.id, granted }, 'oidc sign-in');
    return signIn.afterFirstFactor(request, reply, user, flow.next, 'oidc');
  });

  app.get('/login/oidc/link', async (request, reply) => {
    const link = cookies.link(request);
    const setup = await ctx.oidcSettings.setup();
    if (!setup) return notSetUp(reply);
    if (!link || link.issuer !== setup.issuer) return linkExpired(reply);
    return sendPage(reply, LinkAccountPage({ csrf: csrfToken(request, reply), email: link.email, provider: setup.name }));
  });

  // as the login page: counted by the login limits before the password is checked
  app.post<{ Body: { password?: string } }>('/login/oidc/link', async (request, reply) => {
    const link = cookies.link(request);
    const setup = await ctx.oidcSettings.setup();
    if (!setup) return notSetUp(reply);
    if (!link || link.issuer !== setup.issuer) return linkExpired(reply);
    const again = (message: string, status: number) =>
      sendPage(reply, LinkAccountPage({ csrf: csrfToken(request, reply), email: link.email, provider: setup.name, errors: { password: message } }), status);
    const password = String(request.body?.password ?? '');
    if (!password) return again('Enter the password of your account here.', 400);
    const refusal = await limits.attempt(request, link.email);
    if (refusal) {
      reply.headers(refusalHeaders(refusal));
      return again(refusalMessage(refusal), 429);
    }
    const user = await ctx.users.authenticate(link.email, password);
    if (!user || user.id !== link.userId) {
      count('wrong_password');
      request.log.info({ result: 'wrong_password', issuer: link.issuer, userId: link.userId }, 'oidc sign-in refused');
      return again('This is not the password of your account here.', 400);
    }
    if (user.disabledAt !== null) {
      count('disabled');
      return again(DISABLED, 403);
    }
    await limits.succeeded(request, reply, link.email);
    await ctx.oidcAccounts.link(user, { issuer: link.issuer, subject: link.subject, email: link.email, emailVerified: true, claims: {} });
    const granted = await ctx.oidcAccounts.applyGrants(user, link.grants);
    cookies.dropLink(reply);
    count('linked');
    request.log.info({ result: 'linked', issuer: link.issuer, userId: user.id, granted }, 'oidc sign-in: account linked');
    return signIn.afterFirstFactor(request, reply, user, link.next, 'oidc');
  });

  async function toProvider(request: FastifyRequest, reply: FastifyReply, setup: OidcSetup, flow: Pick<OidcFlow, 'next' | 'purpose' | 'session'>) {
    try {
      const maxAge = flow.purpose === 'confirm' ? CONFIRM_MAX_AGE_S : undefined;
      const start = await ctx.oidcClient.start(setup, ctx.oidcSettings.redirectUri(), { maxAge });
      cookies.setFlow(reply, { state: start.state, nonce: start.nonce, verifier: start.verifier, ...flow });
      return seeOther(reply, start.url);
    } catch (error) {
      if (!(error instanceof OidcError)) throw error;
      return refused(request, reply, setup, error.reason, error.message);
    }
  }

  /** A signed-in person signed in at the provider again: their session may make an API token for 10 minutes. */
  async function confirmed(request: FastifyRequest, reply: FastifyReply, setup: OidcSetup, identity: ProviderIdentity, flow: OidcFlow) {
    const account = request.account;
    const linkedTo = await ctx.oidcAccounts.linkedId(identity);
    if (!account || account.session.idHash !== flow.session || linkedTo !== account.user.id) {
      return refused(request, reply, setup, 'not_this_account', 'the provider signed in another person than this session’s', identity);
    }
    cookies.setConfirmed(reply, account.session.idHash);
    count('confirmed');
    request.log.info({ result: 'confirmed', issuer: identity.issuer, userId: account.user.id }, 'oidc sign-in: confirmed a signed-in person');
    setFlash(reply, `Confirmed with ${setup.name}.`);
    return seeOther(reply, flow.next);
  }

  /** A refusal's page, its log line (why, never a token or code) and its count. */
  function refused(request: FastifyRequest, reply: FastifyReply, setup: OidcSetup, reason: Failure, why: string, identity?: ProviderIdentity) {
    count(reason);
    const fields = { result: reason, issuer: setup.issuer, ...(identity ? { subject: identity.subject, email: identity.email } : {}), why };
    if (reason === 'provider_unreachable') request.log.warn(fields, 'oidc sign-in failed: the provider did not answer');
    else request.log.info(fields, 'oidc sign-in refused');
    const { title, detail, status } = refusalWords(reason, setup.name, identity?.email ?? null);
    return sendPage(reply, SignInRefusedPage({ title, detail }), status);
  }

  function notSetUp(reply: FastifyReply) {
    return sendPage(reply, SignInRefusedPage({ title: 'Single sign-on is not set up', detail: 'This installation signs in with a password only.' }), 404);
  }

  function linkExpired(reply: FastifyReply) {
    const detail = 'This sign-in expired or was started in another browser. Sign in with your provider again from the login page.';
    return sendPage(reply, SignInRefusedPage({ title: 'This sign-in expired', detail }), 410);
  }
}
