import type { Redis } from 'ioredis';
import { createRequire } from 'node:module';
import type { Logger } from 'pino';

/**
 * How long a Redis command may take before its caller counts without Redis. A Redis that is hung
 * (stopped, or its host unreachable without a reset) keeps the connection open and answers
 * nothing: without a bound every submission would wait on it for ever.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 1_000;

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
  return redis;
}
