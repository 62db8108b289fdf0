import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { REMEMBER_FOR_MS } from '../services/remembered-browsers.js';
import type { SecondFactorKind } from '../services/two-factor.js';
import type { Account } from '../services/users.js';
import { seeOther } from './render.js';
import { type SessionCookie, startSession } from './session.js';

/** What proved who the person is before the second factor. */
export type FirstFactor = 'password' | 'oidc';

/** A sign-in waiting for its second factor: the first factor passed, no session yet. */
export interface PendingSignIn {
  userId: string;
  /** Where to go once signed in (already checked by safeNext). */
  next: string;
  firstFactor: FirstFactor;
  expiresAt: number;
}

/** The second factor must follow the first within this time. */
const PENDING_FOR_MS = 10 * 60_000;
// One browser remembers a few accounts at most (a person with two); the oldest drops off past these.
const REMEMBERED_PER_BROWSER = 5;
const SECRET = /^[A-Za-z0-9_-]{43}$/;

/**
 * Every way into the dashboard ends here (issue 43): a password or single sign-on proves the first
 * factor; an account with a second factor (an authenticator app, a recovery code, a passkey) is
 * then asked for it on /login/two-factor, unless this browser was remembered for it. The pending
 * sign-in lives in a signed cookie for 10 minutes and names the account only: it opens nothing.
 * A passkey alone signs in (something held and a PIN or a fingerprint: two factors in one).
 */
export class SignInFlow {
  readonly pendingCookie: string;
  readonly rememberedCookie: string;

  constructor(
    private readonly ctx: AppContext,
    readonly session: SessionCookie,
  ) {
    this.pendingCookie = session.secure ? '__Host-fg_pending' : 'fg_pending';
    this.rememberedCookie = session.secure ? '__Host-fg_remembered' : 'fg_remembered';
  }

  /** After the first factor: signs in, or asks for the second on /login/two-factor. */
  async afterFirstFactor(request: FastifyRequest, reply: FastifyReply, user: Account, next: string, firstFactor: FirstFactor): Promise<FastifyReply> {
    if (user.secondFactorAt === null) return this.begin(request, reply, user, next, firstFactor, null);
    if (await this.ctx.rememberedBrowsers.remembers(user.id, this.rememberedSecrets(request))) {
      return this.begin(request, reply, user, next, firstFactor, 'remembered');
    }
    const pending: PendingSignIn = { userId: user.id, next, firstFactor, expiresAt: Date.now() + PENDING_FOR_MS };
    reply.setCookie(this.pendingCookie, JSON.stringify(pending), this.cookieOptions(new Date(pending.expiresAt)));
    return seeOther(reply, '/login/two-factor');
  }

  /** This browser's sign-in waiting for a second factor, or null (none, expired, or not signed by us). */
  pending(request: FastifyRequest): PendingSignIn | null {
    const raw = request.cookies[this.pendingCookie];
    if (!raw) return null;
    const unsigned = request.unsignCookie(raw);
    if (!unsigned.valid || unsigned.value === null) return null;
    try {
      const pending = JSON.parse(unsigned.value) as PendingSignIn;
      if (typeof pending.userId !== 'string' || typeof pending.next !== 'string' || !(pending.expiresAt > Date.now())) return null;
      return pending;
    } catch {
      return null;
    }
  }

  /** The second factor was right: signs in, and remembers the browser for 30 days when asked. */
  async completeSecondFactor(
    request: FastifyRequest,
    reply: FastifyReply,
    user: Account,
    pending: PendingSignIn,
    kind: SecondFactorKind,
    remember: boolean,
  ): Promise<FastifyReply> {
    if (remember) await this.rememberBrowser(request, reply, user.id);
    return this.begin(request, reply, user, pending.next, pending.firstFactor, kind);
  }

  /** A passkey alone (the login page's "Sign in with a passkey"): both factors in one. */
  async signInWithPasskey(request: FastifyRequest, reply: FastifyReply, user: Account, next: string): Promise<FastifyReply> {
    return this.begin(request, reply, user, next, null, 'passkey');
  }

  /** Forgets the pending sign-in (a fresh login, or "Cancel" on the second step). */
  dropPending(reply: FastifyReply): void {
    reply.clearCookie(this.pendingCookie, this.cookieOptions());
  }

  private async begin(
    request: FastifyRequest,
    reply: FastifyReply,
    user: Account,
    next: string,
    firstFactor: FirstFactor | null,
    secondFactor: SecondFactorKind | null,
  ): Promise<FastifyReply> {
    this.dropPending(reply);
    await startSession(request, reply, this.ctx.sessions, this.session, user.id, secondFactor !== null);
    await this.ctx.audit.record({ action: 'session.started', actorUserId: user.id, actorEmail: user.email, details: { firstFactor, secondFactor } });
    this.ctx.metrics?.signedIn(secondFactor);
    request.log.info({ userId: user.id, firstFactor, secondFactor }, 'signed in');
    return seeOther(reply, next);
  }

  private async rememberBrowser(request: FastifyRequest, reply: FastifyReply, userId: string): Promise<void> {
    const { secret } = await this.ctx.rememberedBrowsers.remember(userId);
    const kept = [secret, ...this.rememberedSecrets(request)].slice(0, REMEMBERED_PER_BROWSER);
    reply.setCookie(this.rememberedCookie, kept.join('.'), this.cookieOptions(new Date(Date.now() + REMEMBER_FOR_MS)));
  }

  private rememberedSecrets(request: FastifyRequest): string[] {
    const raw = request.cookies[this.rememberedCookie];
    if (!raw) return [];
    const unsigned = request.unsignCookie(raw);
    if (!unsigned.valid || unsigned.value === null) return [];
    return unsigned.value.split('.').filter((secret) => SECRET.test(secret));
  }

  private cookieOptions(expires?: Date) {
    return { path: '/', httpOnly: true, sameSite: 'lax' as const, secure: this.session.secure, signed: true, ...(expires ? { expires } : {}) };
  }
}
