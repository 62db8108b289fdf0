// A Redis that comes up after the instance: the start waits for it (FORMGATE_STARTUP_WAIT), saying
// so, and shares its counters from the first request instead of counting alone.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { until } from '../helpers/eventually.js';
import { collectingLogger } from '../helpers/log-lines.js';
import { type PrivateRedis, startPrivateRedis } from '../helpers/private-redis.js';

describe('Redis not reachable yet at start', () => {
  let redis: PrivateRedis | undefined;
  let app: TestApp | undefined;

  after(async () => {
    await app?.close();
    await redis?.stop('SIGKILL').catch(() => undefined);
  });

  it('waits for it, one line a second saying how long is left, and is ready once it answers', async () => {
    redis = await startPrivateRedis();
    await redis.stop('SIGTERM');
    const { logger, lines } = collectingLogger();
    const starting = startApp({ redisUrl: redis.url, startupWait: '30s' }, { logger });
    await until('the instance says it waits for Redis', () => lines.some((line) => /^waiting for Redis/.test(line.msg)));
    const waiting = lines.find((line) => /^waiting for Redis/.test(line.msg))!;
    assert.match(
      waiting.msg,
      new RegExp(`^waiting for Redis at redis://127\\.0\\.0\\.1:${redis.port}/?: next attempt in \\d+\\.\\d s, (29|30) s left \\(FORMGATE_STARTUP_WAIT\\)$`),
    );
    await redis.start();
    app = await starting;
    assert.ok(lines.some((line) => line.msg === 'Redis answers'));
    assert.ok(!lines.some((line) => /did not answer/.test(line.msg)), 'no fallback to counting alone');
  });
});
