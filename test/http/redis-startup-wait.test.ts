// A Redis that comes up after the instance: the start waits for it (FORMGATE_STARTUP_WAIT), saying
// so, and shares its counters from the first request instead of counting alone.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { pino } from 'pino';
import { startApp, type TestApp } from '../helpers/app.js';
import { until } from '../helpers/eventually.js';
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
    const lines: Record<string, any>[] = [];
    const logger = pino(
      { level: 'info' },
      new Writable({
        write(chunk, _encoding, done) {
          for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
          done();
        },
      }),
    );
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
