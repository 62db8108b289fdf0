import type { Redis } from 'ioredis';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type * as Flexible from 'rate-limiter-flexible';
import type { Config, RateLimit } from '../config/config.js';
import { visitorKey } from '../intake/rate-limit.js';
import { normaliseEmail } from '../services/users.js';

// NOTE: as in intake/rate-limit.ts, only the files needed, not the package's index (about 10 MB).
const load = createRequire(import.meta.url);
const RateLimiterMemory: typeof Flexible.RateLimiterMemory = load('rate-limiter-flexible/lib/RateLimiterMemory.js');
const RateLimiterRedis: typeof Flexible.RateLimiterRedis = load('rate-limiter-flexible/lib/RateLimiterRedis.js');
const RateLimiterRes: typeof Flexible.RateLimiterRes = load('rate-limiter-flexible/lib/RateLimiterRes.js');

/** Why an attempt was refused before any password was checked: how long to wait. */
export interface Refusal {
  retryAfterSeconds: number;
}

/** "Too many attempts; try again in 15 minutes": the same words on every page the limits guard. */
export function refusalMessage(refusal: Refusal): string {
  const minutes = Math.max(1, Math.ceil(refusal.retryAfterSeconds / 60));
  return `Too many attempts; try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
}

/** A limiter for `limit` (null when off), shared by every instance through Redis when configured. */
export function limiter(limit: RateLimit, keyPrefix: string, redis: Redis | null): Flexible.RateLimiterAbstract | null {
  if (!limit) return null;
  const options = { points: limit.max, duration: Math.max(1, Math.ceil(limit.windowMs / 1000)), keyPrefix };
  const memory = new RateLimiterMemory(options);
  // if Redis stops answering, each instance counts on its own rather than refusing every login
  return redis ? new RateLimiterRedis({ ...options, storeClient: redis, rejectIfRedisNotReady: true, insuranceLimiter: memory }) : memory;
}

/**
 * Limits on guessing passwords at the login page: failed attempts per account (by its normalised
 * address, whether or not an account has it) and per client address, counted in Redis when
 * configured so that every instance shares them (the client's keyPrefix puts the installation's
 * prefix before each key). An attempt is counted before its password is checked and given back
 * when it succeeds, so parallel guesses cannot slip past the limit.
 */
export class LoginLimits {
  private readonly perAccount: Flexible.RateLimiterAbstract | null;
  private readonly perAddress: Flexible.RateLimiterAbstract | null;

  constructor(config: Pick<Config, 'rateLimitLoginAccount' | 'rateLimitLoginAddress'>, redis: Redis | null) {
    this.perAccount = limiter(config.rateLimitLoginAccount, 'rl-login-account', redis);
    this.perAddress = limiter(config.rateLimitLoginAddress, 'rl-login-address', redis);
  }

  /** Counts a login attempt; a refusal means the password must not be checked at all. */
  async attempt(email: string, ip: string): Promise<Refusal | null> {
    return (await consume(this.perAddress, visitorKey(ip))) ?? consume(this.perAccount, accountKey(email));
  }

  /** The attempt was right: the account's count starts again and the address gets its point back. */
  async succeeded(email: string, ip: string): Promise<void> {
    await Promise.all([this.perAccount?.delete(accountKey(email)), this.perAddress?.reward(visitorKey(ip), 1)]);
  }

  /** Counts a request that could be abused from one address (a reset link asked for) against its limit. */
  request(ip: string): Promise<Refusal | null> {
    return consume(this.perAddress, visitorKey(ip));
  }
}

/** Counts one against `key`; a refusal says how long to wait. */
export async function consume(limiter: Flexible.RateLimiterAbstract | null, key: string): Promise<Refusal | null> {
  if (!limiter) return null;
  try {
    await limiter.consume(key);
    return null;
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return { retryAfterSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)) };
    throw rejection;
  }
}

// Redis holds a hash of the address, not the address.
export function accountKey(email: string): string {
  return createHash('sha256').update(normaliseEmail(email)).digest('hex').slice(0, 32);
}
