import type { TestContext } from 'node:test';
import { Redis } from 'ioredis';

export const TEST_REDIS_URL = 'redis://127.0.0.1:6379';

/** A connection to the development Redis, or null after marking the test skipped (saying why) when none answers. */
export async function connectTestRedis(t: TestContext): Promise<Redis | null> {
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
    return redis;
  } catch (error) {
    redis.disconnect();
    t.skip(`SKIPPED: Redis is not reachable at ${TEST_REDIS_URL} (${(error as Error).message})`);
    return null;
  }
}
