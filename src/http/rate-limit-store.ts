import type { FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
import { createRequire } from 'node:module';

type Counted = { current: number; ttl: number };
type Done = (error: Error | null, result?: Counted) => void;
/** The stores @fastify/rate-limit ships (their incr takes the window and the maximum as well). */
interface PackageStore {
  incr(key: string, done: Done, timeWindow: number, max: number): void;
  child(routeOptions: unknown): PackageStore;
}

const load = createRequire(import.meta.url);
const LocalStore: new (continueExceeding: boolean, exponentialBackoff: boolean) => PackageStore = load('@fastify/rate-limit/store/LocalStore.js');
const RedisStore: new (continueExceeding: boolean, exponentialBackoff: boolean, redis: Redis, key: string) => PackageStore = load(
  '@fastify/rate-limit/store/RedisStore.js',
);

/** Counts in Redis while it answers, in this process while it does not. */
class FallbackStore {
  constructor(
    private readonly useRedis: () => boolean,
    private readonly shared: PackageStore,
    private readonly local: PackageStore,
  ) {}

  incr(key: string, done: Done, timeWindow: number, max: number): void {
    const countHere = () => this.local.incr(key, done, timeWindow, max);
    if (!this.useRedis()) countHere();
    else this.shared.incr(key, (error, result) => (error ? countHere() : done(null, result)), timeWindow, max);
  }

  child(routeOptions: unknown): FallbackStore {
    return new FallbackStore(this.useRedis, this.shared.child(routeOptions), this.local.child(routeOptions));
  }
}

/**
 * The API's rate-limit counters in Redis, shared by every instance; while Redis is down or not
 * answering, each instance counts on its own (as the submit surface's limiter does), instead of
 * failing every request with a 500 as @fastify/rate-limit's own Redis store does.
 */
export function redisStoreWithFallback(redis: Redis, nameSpace: string): FastifyRateLimitStoreCtor {
  // a starting instance serves only once Redis is ready or its wait is over (net/redis-client.ts
  // whenRedisReady): from then on a Redis that is not ready is skipped at once
  const useRedis = () => redis.status === 'ready';
  // NOTE: @fastify/rate-limit builds the store itself, from its options only: Redis comes in by closure.
  const Store = class extends FallbackStore {
    constructor({ continueExceeding = false, exponentialBackoff = false }: { continueExceeding?: boolean; exponentialBackoff?: boolean }) {
      super(useRedis, new RedisStore(continueExceeding, exponentialBackoff, redis, nameSpace), new LocalStore(continueExceeding, exponentialBackoff));
    }
  };
  return Store as unknown as FastifyRateLimitStoreCtor;
}
