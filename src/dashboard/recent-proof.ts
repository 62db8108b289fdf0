import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ActiveSession } from '../services/sessions.js';
import { RECENT_SECOND_FACTOR_MS, secondFactorAsked } from './second-factor-check.js';

/**
 * "Confirm it is you" before adding or removing a passkey (issue 43): a passkey signs in alone, so
 * a borrowed session must not be able to add one of its own, nor remove the owner's. Confirmed,
 * for 15 minutes, means:
 * - an account with a second factor: the session proved it (a sign-in with it, a passkey or an
 *   app's code given since): the same rule as making an API token (second-factor-check.ts);
 * - an account without one: the session began (a password, single sign-on), or the password was
 *   given again, within 15 minutes. The latter is a signed cookie naming the session.
 */
export class RecentProof {
  readonly cookieName: string;

  constructor(private readonly secure: boolean) {
    this.cookieName = secure ? '__Host-fg_confirmed' : 'fg_confirmed';
  }

  isRecent(request: FastifyRequest, account: ActiveSession, now = Date.now()): boolean {
    if (account.user.secondFactorAt !== null) return !secondFactorAsked(account, now);
    if (now - account.session.createdAt < RECENT_SECOND_FACTOR_MS) return true;
    const raw = request.cookies[this.cookieName];
    const unsigned = raw ? request.unsignCookie(raw) : null;
    if (!unsigned?.valid || unsigned.value === null) return false;
    const [idHash, until] = unsigned.value.split('.');
    return idHash === account.session.idHash && Number(until) > now;
  }

  /** The account's password was given again just now, in this session. */
  passwordGiven(reply: FastifyReply, account: ActiveSession, now = Date.now()): void {
    const until = now + RECENT_SECOND_FACTOR_MS;
    reply.setCookie(this.cookieName, `${account.session.idHash}.${until}`, {
      path: '/',
      httpOnly: true,
      sameSite: 'strict',
      secure: this.secure,
      signed: true,
      expires: new Date(until),
    });
  }
}
