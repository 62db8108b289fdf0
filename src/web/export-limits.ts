import type { FastifyReply } from 'fastify';
import type { Redis } from 'ioredis';
import type * as Flexible from 'rate-limiter-flexible';
import type { Config } from '../config/config.js';
import { ProblemError } from '../errors.js';
import { consume, limiter, type Refusal, refusalHeaders } from './limiter.js';

/** Exports and erasures (previews too) one account may run at once, in each instance. */
export const EXPORTS_AT_ONCE = 2;
/** What a refusal for running too many at once asks to wait: an export of 100,000 rows takes a few seconds. */
const AT_ONCE_RETRY_SECONDS = 10;

/** Gives back what `take` took: once, whichever way the work ended. */
export type Release = () => void;

/**
 * The walks over a whole workspace that an account starts at will (issue 38): exports (API and
 * dashboard) and erasures with their previews. Each reads every row of a form or workspace, so one
 * account could keep an instance busy with them in a loop. Per account (its user, whatever token or
 * session asks): at most EXPORTS_AT_ONCE at once in this instance, and FORMGATE_RATE_LIMIT_EXPORTS
 * (60 an hour by default) counted in Redis when it is configured, so that every instance shares it.
 */
export class ExportLimits {
  private readonly perAccount: Flexible.RateLimiterAbstract | null;
  private readonly running = new Map<string, number>();

  constructor(config: Pick<Config, 'rateLimitExports'>, redis: Redis | null) {
    this.perAccount = limiter(config.rateLimitExports, 'rl-exports-account', redis);
  }

  /**
   * Counts one export or erasure by `userId` and holds one of its places until the answer is
   * released; past either limit, `rate_limited` (429) with Retry-After set on `reply`, and nothing is run.
   */
  private async take(userId: string, reply: FastifyReply): Promise<Release> {
    const running = this.running.get(userId) ?? 0;
    if (running >= EXPORTS_AT_ONCE) {
      throw refused(
        reply,
        { retryAfterSeconds: AT_ONCE_RETRY_SECONDS, limit: EXPORTS_AT_ONCE },
        `At most ${EXPORTS_AT_ONCE} exports and erasures of an account run at once`,
      );
    }
    // NOTE: the place is held before the count is asked for, so that two requests racing here cannot both pass
    this.running.set(userId, running + 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const left = (this.running.get(userId) ?? 1) - 1;
      if (left > 0) this.running.set(userId, left);
      else this.running.delete(userId);
    };
    try {
      const refusal = await consume(this.perAccount, `user:${userId}`);
      if (refusal) throw refused(reply, refusal, 'Too many exports and erasures');
    } catch (error) {
      release();
      throw error;
    }
    return release;
  }

  /**
   * Runs `work` under the account's limits. Its place is given back when it ends, or with `until:
   * 'sent'` once the answer has been sent or the connection closed (a streamed export). A request the
   * work refuses (another account's form, a free workspace, a bad address: a 4xx problem) read no
   * rows, so it gives back its hourly count too: a refusal changes nothing, the limit included.
   */
  async run<T>(userId: string, reply: FastifyReply, work: () => Promise<T>, until: 'done' | 'sent' = 'done'): Promise<T> {
    const release = await this.take(userId, reply);
    if (until === 'sent') reply.raw.once('close', release);
    try {
      const result = await work();
      if (until === 'done') release();
      return result;
    } catch (error) {
      release();
      if (error instanceof ProblemError && error.status < 500) await this.perAccount?.reward(`user:${userId}`, 1).catch(() => undefined);
      throw error;
    }
  }
}

function refused(reply: FastifyReply, refusal: Pick<Refusal, 'limit' | 'retryAfterSeconds'>, what: string): ProblemError {
  const seconds = refusal.retryAfterSeconds;
  reply.log.info({ retryAfter: seconds }, 'export or erasure refused: the account’s limit (FORMGATE_RATE_LIMIT_EXPORTS, or at once) reached');
  reply.headers(refusalHeaders(refusal));
  return new ProblemError('rate_limited', `${what}; try again in ${seconds} second${seconds === 1 ? '' : 's'}.`, { retryAfter: seconds });
}
