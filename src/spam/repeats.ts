import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';

export const REPEAT_WINDOW_MS = 10 * 60_000;
export const REPEAT_LIMIT = 3;
const DEFAULT_MAX_TRACKED = 10_000;

/** Where the repeat signal remembers when each (address, content) pair was last seen. */
export interface RepeatLog {
  /** Notes one sighting of `key` at `now`; answers how many sightings the window holds, this one included (at most REPEAT_LIMIT). */
  sighted(key: string, now: number): number | Promise<number>;
}

/** In this process: the `maxTracked` most recently seen pairs, the least recent forgotten first. */
export class MemoryRepeatLog implements RepeatLog {
  private readonly recent: LRUCache<string, number[]>;

  constructor(maxTracked = DEFAULT_MAX_TRACKED) {
    this.recent = new LRUCache({ max: Math.max(1, maxTracked) });
  }

  get size(): number {
    return this.recent.size;
  }

  sighted(key: string, now: number): number {
    const times = (this.recent.get(key) ?? []).filter((time) => now - time < REPEAT_WINDOW_MS);
    times.push(now);
    this.recent.set(key, times.slice(-REPEAT_LIMIT));
    return Math.min(times.length, REPEAT_LIMIT);
  }
}

/**
 * In Redis, shared by every instance: one sorted set of sighting times per pair, trimmed to the
 * window and to the last REPEAT_LIMIT, expiring with the window. While Redis is not answering, the
 * process's own log counts instead, as the rate limits fall back to their own counters.
 */
export class RedisRepeatLog implements RepeatLog {
  constructor(
    private readonly redis: Redis,
    private readonly fallback: MemoryRepeatLog,
    private readonly keyPrefix = 'repeat:',
  ) {}

  async sighted(key: string, now: number): Promise<number> {
    if (this.redis.status !== 'ready') return this.fallback.sighted(key, now);
    const set = this.keyPrefix + key;
    try {
      const replies = await this.redis
        .multi()
        .zremrangebyscore(set, '-inf', now - REPEAT_WINDOW_MS)
        // a member per sighting: two at the same millisecond are two
        .zadd(set, now, `${now}:${randomBytes(6).toString('base64url')}`)
        .zremrangebyrank(set, 0, -REPEAT_LIMIT - 1)
        .zcard(set)
        .pexpire(set, REPEAT_WINDOW_MS)
        .exec();
      const [error, count] = replies?.[3] ?? [new Error('no reply')];
      if (error) throw error;
      return Number(count);
    } catch {
      return this.fallback.sighted(key, now);
    }
  }
}
