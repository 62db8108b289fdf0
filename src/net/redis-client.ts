import type { Redis } from 'ioredis';
import { createRequire } from 'node:module';
import type { Logger } from 'pino';

/**
 * How long a Redis command may take before its caller counts without Redis. A Redis that is hung
 * (stopped, or its host unreachable without a reset) keeps the connection open and answers
 * nothing: without a bound every submission would wait on it for ever.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 1_000;
/** How often a connection that looks ready is checked for a Redis that stopped answering. */
const HEARTBEAT_MS = 1_000;

/**
 * The shared rate-limit counters' connection. Loaded only when Redis is configured: a single
 * instance never pays ioredis's memory (about 20 MB). ioredis puts `keyPrefix` before the key of
 * every command (Lua scripts' keys included), so no caller can forget the installation's prefix.
 * While Redis is away, ioredis reconnects on its own and every counter falls back to this
 * process's; the log says so once per outage, not at each reconnection attempt.
 */
export function connectRedis(url: string, keyPrefix: string, logger: Logger): Redis {
  const { Redis: RedisClient } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
  const redis = new RedisClient(url, { maxRetriesPerRequest: 1, enableOfflineQueue: true, keyPrefix, commandTimeout: REDIS_COMMAND_TIMEOUT_MS });
  let down = false;
  redis.on('error', (error: Error) => {
    if (down) return;
    down = true;
    logger.warn({ err: error }, 'Redis is not answering: rate limits count in this process until it is back');
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    logger.info('Redis answers again: rate limits are shared again');
  });
  dropWhenHung(redis, () => {
    if (down) return;
    down = true;
    logger.warn('Redis does not answer: rate limits count in this process until it is back');
  });
  return redis;
}

/**
 * A hung Redis leaves its connection open and 'ready': every caller would wait out the command
 * timeout, and the commands it never answers stay queued in the client for their replies, for as
 * long as the hang lasts. A heartbeat that goes unanswered drops the connection instead: the queue
 * is emptied, callers count locally at once (the client is no longer ready), and ioredis
 * reconnects, ready again when Redis answers its ready check.
 */
function dropWhenHung(redis: Redis, onHung: () => void): void {
  let beating = false;
  const heartbeat = setInterval(() => {
    if (beating || redis.status !== 'ready') return;
    beating = true;
    redis
      .ping()
      .catch(() => {
        if (redis.status !== 'ready') return;
        onHung();
        redis.disconnect(true);
      })
      .finally(() => (beating = false));
  }, HEARTBEAT_MS);
  heartbeat.unref();
  redis.once('end', () => clearInterval(heartbeat));
}

/**
 * Waits until Redis answers, up to `deadlineMs` (FORMGATE_STARTUP_WAIT), saying so as ioredis
 * retries. Until then every limiter counts in this process alone, so an instance that answered at
 * once after a restart let each visitor past the shared limits once more. Past the deadline it
 * serves anyway (as when Redis goes away later) and says so.
 */
export async function whenRedisReady(redis: Redis, deadlineMs: number, logger: Logger, url = ''): Promise<void> {
  if (redis.status === 'ready' || deadlineMs <= 0) return;
  const started = Date.now();
  let lastSaid = Number.NEGATIVE_INFINITY;
  // ioredis retries every 50 ms at first: one line a second at most is what a person can read
  const onRetry = (delayMs: number) => {
    if (Date.now() - lastSaid < 1_000) return;
    lastSaid = Date.now();
    const left = Math.max(0, Math.ceil((deadlineMs - (Date.now() - started)) / 1000));
    logger.info(
      `waiting for Redis${url ? ` at ${withoutPassword(url)}` : ''}: next attempt in ${(delayMs / 1000).toFixed(1)} s, ${left} s left (FORMGATE_STARTUP_WAIT)`,
    );
  };
  const ready = await new Promise<boolean>((resolve) => {
    const done = (answered: boolean) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      redis.off('reconnecting', onRetry);
      resolve(answered);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), deadlineMs);
    redis.once('ready', onReady);
    redis.on('reconnecting', onRetry);
  });
  if (!ready) logger.warn(`Redis did not answer within ${deadlineMs / 1000} s; rate limits count in this instance alone until it does`);
  else if (lastSaid > Number.NEGATIVE_INFINITY) logger.info('Redis answers');
}

function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'Redis';
  }
}
