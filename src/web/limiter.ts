import type { Redis } from 'ioredis';
import { createRequire } from 'node:module';
import type * as Flexible from 'rate-limiter-flexible';
import type { RateLimit } from '../config/config.js';

// NOTE: as in intake/rate-limit.ts, only the files needed, not the package's index (about 10 MB).
const load = createRequire(import.meta.url);
const RateLimiterMemory: typeof Flexible.RateLimiterMemory = load('rate-limiter-flexible/lib/RateLimiterMemory.js');
const RateLimiterRedis: typeof Flexible.RateLimiterRedis = load('rate-limiter-flexible/lib/RateLimiterRedis.js');
const RateLimiterRes: typeof Flexible.RateLimiterRes = load('rate-limiter-flexible/lib/RateLimiterRes.js');

/** Why an attempt was refused before any password was checked: how long to wait, and which limit. */
export interface Refusal {
  retryAfterSeconds: number;
  /** The number of attempts the limit that refused allows in its window. */
  limit: number;
  /**
   * `unknown-browser`: the account's failures from browsers that never logged in to it reached
   * their limit; a browser that has, and a reset link, still get in.
   */
  reason?: 'attempts' | 'unknown-browser';
}

/** A limiter for `limit` (null when off), shared by every instance through Redis when configured. */
export function limiter(limit: RateLimit, keyPrefix: string, redis: Redis | null): Flexible.RateLimiterAbstract | null {
  if (!limit) return null;
  const options = { points: limit.max, duration: Math.max(1, Math.ceil(limit.windowMs / 1000)), keyPrefix };
  const memory = new RateLimiterMemory(options);
  // if Redis stops answering, each instance counts on its own rather than refusing every login
  return redis ? new RateLimiterRedis({ ...options, storeClient: redis, rejectIfRedisNotReady: true, insuranceLimiter: memory }) : memory;
}

/** Counts one against `key`; a refusal says how long to wait. */
export async function consume(limiter: Flexible.RateLimiterAbstract | null, key: string): Promise<Refusal | null> {
  if (!limiter) return null;
  try {
    await limiter.consume(key);
    return null;
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) {
      return { retryAfterSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)), limit: limiter.points, reason: 'attempts' };
    }
    throw rejection;
  }
}

/** The headers of a `rate_limited` problem that carries its wait (`retryAfter`) and, where known, its limit (`limit`). */
export function problemRefusalHeaders(extra: Record<string, unknown>): Record<string, string> {
  const { retryAfter, limit } = extra;
  if (typeof retryAfter !== 'number') return {};
  return typeof limit === 'number' ? refusalHeaders({ retryAfterSeconds: retryAfter, limit }) : { 'retry-after': String(retryAfter) };
}

/**
 * The headers of a 429 that say which limit refused: Retry-After, and X-RateLimit-* of that limit
 * (its size, 0 left, the seconds until it resets), not the API's general per-address budget that
 * @fastify/rate-limit reports on every answer: a client that reads those retries after the wait.
 */
export function refusalHeaders(refusal: Pick<Refusal, 'limit' | 'retryAfterSeconds'>): Record<string, string> {
  const seconds = String(refusal.retryAfterSeconds);
  return { 'retry-after': seconds, 'x-ratelimit-limit': String(refusal.limit), 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': seconds };
}
