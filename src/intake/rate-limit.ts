import type { Redis } from 'ioredis';
import ipaddr from 'ipaddr.js';
import { createRequire } from 'node:module';
import type * as Flexible from 'rate-limiter-flexible';
import type { RateLimit } from '../config/config.js';

// NOTE: the package's index loads a limiter for every store it supports (about 10 MB); these three
// files are all this needs (about 2 MB).
const load = createRequire(import.meta.url);
const RateLimiterMemory: typeof Flexible.RateLimiterMemory = load('rate-limiter-flexible/lib/RateLimiterMemory.js');
const RateLimiterRedis: typeof Flexible.RateLimiterRedis = load('rate-limiter-flexible/lib/RateLimiterRedis.js');
const RateLimiterRes: typeof Flexible.RateLimiterRes = load('rate-limiter-flexible/lib/RateLimiterRes.js');

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number; limit: number };

/**
 * Per-client limits of the submit surface (rate-limiter-flexible). With Redis every instance
 * shares the counters; if Redis stops answering, each instance falls back to its own counters
 * rather than refusing or waving through every visitor.
 */
export class SubmitRateLimiter {
  private readonly limiter: Flexible.RateLimiterAbstract | null;

  constructor(limit: RateLimit, redis: Redis | null) {
    if (!limit) {
      this.limiter = null;
      return;
    }
    const options = { points: limit.max, duration: Math.max(1, Math.ceil(limit.windowMs / 1000)), keyPrefix: 'rl-submit' };
    const memory = new RateLimiterMemory(options);
    this.limiter = redis ? new RateLimiterRedis({ ...options, storeClient: redis, rejectIfRedisNotReady: true, insuranceLimiter: memory }) : memory;
  }

  /** Counts one request from `clientKey` and says whether it may go on. */
  async consume(clientKey: string): Promise<RateDecision> {
    if (!this.limiter) return { allowed: true };
    try {
      await this.limiter.consume(clientKey);
      return { allowed: true };
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) {
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)), limit: this.limiter.points };
      }
      throw rejection;
    }
  }
}

/**
 * Who a visitor is to the rate limit and the spam filter's repeat signal: one IPv4 address, or one
 * IPv6 /64 (a subscriber usually holds a whole /64, so counting per address would let one visitor
 * rotate freely).
 */
export function visitorKey(ip: string): string {
  if (!ipaddr.IPv6.isValid(ip) || ipaddr.IPv4.isValid(ip)) return ip;
  const address = ipaddr.IPv6.parse(ip);
  // NOTE: a server listening on `::` sees IPv4 clients as ::ffff:a.b.c.d: they share one /64, but each is its own visitor
  if (address.isIPv4MappedAddress()) return address.toIPv4Address().toString();
  const parts = address.parts.slice(0, 4);
  return `${parts.map((p) => p.toString(16)).join(':')}::/64`;
}
