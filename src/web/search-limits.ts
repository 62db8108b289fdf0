import type { FastifyReply } from 'fastify';
import type { Redis } from 'ioredis';
import type * as Flexible from 'rate-limiter-flexible';
import type { Config } from '../config/config.js';
import { ProblemError } from '../errors.js';
import { visitorKey } from '../intake/rate-limit.js';
import { consume, limiter, type Refusal, refusalHeaders } from './limiter.js';

/**
 * Searches (`search` on the API's lists and exports, the dashboard inbox's and its exports) per
 * caller (an API token, a dashboard session) and per client address (an IPv6 /64), each within
 * FORMGATE_RATE_LIMIT_SEARCH. A search costs more than a page of a list: at most SEARCH_ROW_CAP rows
 * checked (services/submissions.ts), and the whole set for an export; counted in Redis when configured,
 * so that every instance shares the counts.
 */
export class SearchLimits {
  private readonly perCaller: Flexible.RateLimiterAbstract | null;
  private readonly perAddress: Flexible.RateLimiterAbstract | null;

  constructor(config: Pick<Config, 'rateLimitSearch'>, redis: Redis | null) {
    this.perCaller = limiter(config.rateLimitSearch, 'rl-search-caller', redis);
    this.perAddress = limiter(config.rateLimitSearch, 'rl-search-address', redis);
  }

  /**
   * Counts one search by `caller` from `ip`; past either limit, `rate_limited` (429) with
   * Retry-After set on `reply`, and the search is not run.
   */
  async take(caller: string, ip: string, reply: FastifyReply): Promise<void> {
    const refusal = (await consume(this.perAddress, visitorKey(ip))) ?? (await consume(this.perCaller, caller));
    if (refusal) throw refused(refusal, reply);
  }
}

function refused(refusal: Refusal, reply: FastifyReply): ProblemError {
  const seconds = refusal.retryAfterSeconds;
  reply.log.info({ retryAfter: seconds }, 'search refused: FORMGATE_RATE_LIMIT_SEARCH reached');
  reply.headers(refusalHeaders(refusal));
  return new ProblemError('rate_limited', `Too many searches; try again in ${seconds} second${seconds === 1 ? '' : 's'}.`, { retryAfter: seconds });
}
