import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type * as Flexible from 'rate-limiter-flexible';
import { consume, limiter } from '../web/limiter.js';
import { accountKey, type LoginLimits } from './login-limits.js';

/** Sign-up emails one address is sent an hour (documented in docs/dashboard.md). */
export const SIGNUP_EMAILS_PER_ADDRESS_PER_HOUR = 5;

/**
 * Open sign-up sends an email to any address typed in, so the form must not flood an inbox: at most
 * 5 an hour to one address (by its normalised form, hashed), and each request counts against the
 * client's limit that login attempts and reset requests share (FORMGATE_RATE_LIMIT_LOGIN_ADDRESS).
 * Counted in Redis when configured, so every instance shares the counts.
 */
export class SignupEmailLimits {
  private readonly perRecipient: Flexible.RateLimiterAbstract;

  constructor(
    private readonly perClient: LoginLimits,
    redis: Redis | null,
  ) {
    this.perRecipient = limiter({ max: SIGNUP_EMAILS_PER_ADDRESS_PER_HOUR, windowMs: 60 * 60_000 }, 'rl-signup-email', redis)!;
  }

  /** The browser that made the account is known to it (login-limits.ts): failures elsewhere do not lock it out. */
  signedUp(request: FastifyRequest, reply: FastifyReply, email: string): void {
    this.perClient.proven(request, reply, email);
  }

  /** Counts a sign-up email to `email` asked for from `ip`: false means it must not be sent. */
  async allow(email: string, ip: string): Promise<boolean> {
    if (await this.perClient.request(ip)) return false;
    return (await consume(this.perRecipient, accountKey(email))) === null;
  }
}
