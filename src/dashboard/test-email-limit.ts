import type { Redis } from 'ioredis';
import { createRequire } from 'node:module';
import type * as Flexible from 'rate-limiter-flexible';
import type { Refusal } from '../web/limiter.js';

// NOTE: as in web/limiter.ts, only the files needed, not the package's index.
const load = createRequire(import.meta.url);
const RateLimiterMemory: typeof Flexible.RateLimiterMemory = load('rate-limiter-flexible/lib/RateLimiterMemory.js');
const RateLimiterRedis: typeof Flexible.RateLimiterRedis = load('rate-limiter-flexible/lib/RateLimiterRedis.js');
const RateLimiterRes: typeof Flexible.RateLimiterRes = load('rate-limiter-flexible/lib/RateLimiterRes.js');

/** Test emails an account may send an hour (documented in docs/dashboard.md). */
export const TEST_EMAILS_PER_HOUR = 10;

/**
 * "Send me a test" goes to the account's own address, but each is a real email through the
 * installation's SMTP server: at most 10 an hour per account, counted in Redis when configured (every
 * instance shares the count), else in the process. Each key expires an hour after its first test,
 * so the count stays as small as the accounts that sent one in the last hour.
 */
export class TestEmailLimit {
  private readonly limiter: Flexible.RateLimiterAbstract;

  /** `keyPrefix` keeps each kind of test (a template's, the admin page's SMTP test) counted on its own. */
  constructor(redis: Redis | null, keyPrefix = 'rl-template-test') {
    const options = { points: TEST_EMAILS_PER_HOUR, duration: 3600, keyPrefix };
    const memory = new RateLimiterMemory(options);
    this.limiter = redis ? new RateLimiterRedis({ ...options, storeClient: redis, rejectIfRedisNotReady: true, insuranceLimiter: memory }) : memory;
  }

  /** Counts a test; a refusal says how long to wait. */
  async take(userId: string): Promise<Refusal | null> {
    try {
      await this.limiter.consume(userId);
      return null;
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return { retryAfterSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)), limit: TEST_EMAILS_PER_HOUR };
      throw rejection;
    }
  }

  /** A test that was not sent (the template could not be rendered) does not count. */
  async giveBack(userId: string): Promise<void> {
    await this.limiter.reward(userId, 1);
  }
}
