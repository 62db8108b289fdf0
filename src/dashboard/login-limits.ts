import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { createHash } from 'node:crypto';
import type * as Flexible from 'rate-limiter-flexible';
import type { Config } from '../config/config.js';
import { visitorKey } from '../intake/rate-limit.js';
import { normaliseEmail } from '../domain/email-address.js';
import { consume, limiter, type Refusal } from '../web/limiter.js';
import type { DeviceCookies } from './device-cookie.js';

/** "Too many attempts; try again in 15 minutes": the same words on every page the limits guard. */
export function refusalMessage(refusal: Refusal): string {
  const minutes = Math.max(1, Math.ceil(refusal.retryAfterSeconds / 60));
  const wait = `try again in ${minutes} minute${minutes === 1 ? '' : 's'}`;
  if (refusal.reason === 'unknown-browser') {
    // NOTE: said for an address with no account too, so the words tell nobody who has one
    return `Too many attempts for this account from browsers it has not logged in from; ${wait}, log in from a browser you have used before, or reset your password.`;
  }
  return `Too many attempts; ${wait}.`;
}

/**
 * Limits on guessing passwords at the login page (and wherever a logged-in account gives its password
 * again), counted in Redis when configured so that every instance shares them (the client's
 * keyPrefix puts the installation's prefix before each key):
 * - per client address, whatever the account (spraying many accounts from one address);
 * - for a browser known to the account (its device cookie, device-cookie.ts): per browser only, so
 *   failures from anywhere else never lock its owner out;
 * - for any other browser: per account and client address together (a brute force from one address),
 *   and per account over all unknown browsers (a brute force spread over many addresses). Past the
 *   latter, unknown browsers are asked to use a known one or a reset link, which makes the browser known.
 * An attempt is counted before its password is checked and given back when it succeeds, so parallel
 * guesses cannot slip past the limit. Accounts are keyed by their normalised address, whether or not
 * an account has it, so the answers tell nobody who has one.
 */
export class LoginLimits {
  private readonly perAccount: Flexible.RateLimiterAbstract | null;
  private readonly perAccountAndAddress: Flexible.RateLimiterAbstract | null;
  private readonly perDevice: Flexible.RateLimiterAbstract | null;
  private readonly perAddress: Flexible.RateLimiterAbstract | null;
  private readonly perSecondFactor: Flexible.RateLimiterAbstract | null;

  constructor(
    config: Pick<Config, 'rateLimitLoginAccount' | 'rateLimitLoginAddress'>,
    redis: Redis | null,
    private readonly devices: DeviceCookies,
  ) {
    this.perAccount = limiter(config.rateLimitLoginAccount, 'rl-login-account', redis);
    this.perAccountAndAddress = limiter(config.rateLimitLoginAccount, 'rl-login-pair', redis);
    this.perDevice = limiter(config.rateLimitLoginAccount, 'rl-login-device', redis);
    this.perAddress = limiter(config.rateLimitLoginAddress, 'rl-login-address', redis);
    this.perSecondFactor = limiter(config.rateLimitLoginAccount, 'rl-login-second-factor', redis);
  }

  /** Counts an attempt at the account's password from this request's browser and address; a refusal means the password must not be checked at all. */
  async attempt(request: FastifyRequest, email: string): Promise<Refusal | null> {
    const ip = request.ip;
    const device = this.devices.deviceFor(request, email);
    const fromAddress = await consume(this.perAddress, visitorKey(ip));
    if (fromAddress) return fromAddress;
    if (device) return consume(this.perDevice, device);
    const fromPair = await consume(this.perAccountAndAddress, pairKey(email, ip));
    if (fromPair) return fromPair;
    const forAccount = await consume(this.perAccount, accountKey(email));
    return forAccount && { ...forAccount, reason: 'unknown-browser' };
  }

  /**
   * The password was right: the account's counts start again, the address gets its point back, and
   * the browser becomes (or stays) known to the account.
   */
  async succeeded(request: FastifyRequest, reply: FastifyReply, email: string): Promise<void> {
    const ip = request.ip;
    const device = this.devices.deviceFor(request, email);
    this.devices.remember(request, reply, email);
    await Promise.all([
      this.perAccount?.delete(accountKey(email)),
      this.perAccountAndAddress?.delete(pairKey(email, ip)),
      device ? this.perDevice?.delete(device) : undefined,
      this.perAddress?.reward(visitorKey(ip), 1),
    ]);
  }

  /**
   * Counts a try at the account's second factor (a code or a passkey after the password). Apart
   * from the password's counts, and not given back when the password is right again: whoever knows
   * the password cannot earn fresh guesses at the code by signing in anew. Also per client address.
   */
  async secondFactorAttempt(request: FastifyRequest, userId: string): Promise<Refusal | null> {
    const fromAddress = await consume(this.perAddress, visitorKey(request.ip));
    if (fromAddress) return fromAddress;
    return consume(this.perSecondFactor, userId);
  }

  /** The second factor was right: its count starts anew. */
  async secondFactorSucceeded(request: FastifyRequest, userId: string): Promise<void> {
    await Promise.all([this.perSecondFactor?.delete(userId), this.perAddress?.reward(visitorKey(request.ip), 1)]);
  }

  /** A reset link proved the mailbox: the browser that used it becomes known to the account. */
  proven(request: FastifyRequest, reply: FastifyReply, email: string): void {
    this.devices.remember(request, reply, email);
  }

  /** Counts a request that could be abused from one address (a reset link asked for) against its limit. */
  request(ip: string): Promise<Refusal | null> {
    return consume(this.perAddress, visitorKey(ip));
  }
}

// Redis holds a hash of the address, not the address.
export function accountKey(email: string): string {
  return createHash('sha256').update(normaliseEmail(email)).digest('hex').slice(0, 32);
}

/** The account and the client address together (the address as rate limits count it: an IPv6 /64), hashed. */
function pairKey(email: string, ip: string): string {
  return createHash('sha256')
    .update(`${normaliseEmail(email)}\n${visitorKey(ip)}`)
    .digest('hex')
    .slice(0, 32);
}
