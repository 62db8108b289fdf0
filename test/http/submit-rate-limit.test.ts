import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { describe, it } from 'node:test';
import { connectTestRedis, TEST_REDIS_URL } from '../helpers/redis.js';
import { startApp, type Answer, type TestApp } from '../helpers/app.js';
import { createAccount, createForm } from '../helpers/fixtures.js';
import { assertProblem, assertRefusedBy } from '../helpers/problems.js';
import { BROWSER_ACCEPT, JSON_ACCEPT, post, storedRows } from '../helpers/submit.js';

const CONTACT = { name: 'Rosalind', message: 'Please call me back about the order.' };

function assertRateLimited(app: TestApp, answer: Answer): void {
  assertProblem(app, answer, 'rate_limited');
  const retryAfter = Number(answer.headers.get('retry-after'));
  assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter} within the window`);
}

/** A loopback source address of its own, so counters left by other runs or files never interfere. */
const freshVisitor = () => `127.${randomInt(1, 255)}.${randomInt(1, 255)}.${randomInt(2, 255)}`;

describe('submit surface: rate limit (step 1)', () => {
  it('answers the 4th submission in the window from one address with 429 rate_limited and Retry-After, in process', async () => {
    const app = await startApp({ rateLimitSubmit: '3/1m' });
    try {
      const form = await createForm(app, await createAccount(app));
      const visitor = freshVisitor();
      for (let i = 1; i <= 3; i++) {
        const answer = await post(app, form.id, { ...CONTACT, n: String(i) }, { accept: JSON_ACCEPT, localAddress: visitor });
        assert.equal(answer.status, 200, `submission ${i}`);
      }
      const refused = await post(app, form.id, CONTACT, { accept: JSON_ACCEPT, localAddress: visitor });
      assertRateLimited(app, refused);
      assertRefusedBy(refused, 3);
      assertRateLimited(app, await post(app, 'echo', CONTACT, { localAddress: visitor }));
      const page = await post(app, form.id, CONTACT, { accept: BROWSER_ACCEPT, localAddress: visitor });
      assert.equal(page.status, 429);
      assert.ok(page.body.includes('Too many submissions'));
      assertRefusedBy(page, 3);
      assert.equal((await storedRows(app, form.id)).length, 3, 'nothing refused was stored');
      // another address has a count of its own
      assert.equal((await post(app, form.id, CONTACT, { accept: JSON_ACCEPT, localAddress: freshVisitor() })).status, 200);
    } finally {
      await app.close();
    }
  });

  it('shares the count between instances through Redis', async (t) => {
    const redis = await connectTestRedis(t);
    if (!redis) return;
    const redisUrl = TEST_REDIS_URL;
    const visitor = freshVisitor();
    const dropKeys = async () => {
      const keys = await redis.keys(`formgate:rl-submit:${visitor}`);
      if (keys.length > 0) await redis.del(...keys);
    };
    await dropKeys();
    const a = await startApp({ rateLimitSubmit: '3/1m', redisUrl });
    const b = await startApp({ rateLimitSubmit: '3/1m', redisUrl });
    try {
      const onA = await createForm(a, await createAccount(a));
      const onB = await createForm(b, await createAccount(b));
      const send = (app: TestApp, formId: string) => post(app, formId, CONTACT, { accept: JSON_ACCEPT, localAddress: visitor });
      assert.equal((await send(a, onA.id)).status, 200, '1st, on A');
      assert.equal((await send(b, onB.id)).status, 200, '2nd, on B');
      assert.equal((await send(a, onA.id)).status, 200, '3rd, on A');
      assertRateLimited(b, await send(b, onB.id));
      assertRateLimited(a, await send(a, onA.id));
      const keys = await redis.keys('formgate:rl-submit:*');
      assert.ok(
        keys.some((k) => k.endsWith(visitor)),
        `the counter of ${visitor} is in Redis: ${keys.join(', ')}`,
      );
    } finally {
      await Promise.allSettled([a.close(), b.close()]);
      await dropKeys().catch(() => undefined);
      redis.disconnect();
    }
  });

  it('counts in Redis from the first request an instance answers, not in its own memory while it connects', async (t) => {
    const redis = await connectTestRedis(t);
    if (!redis) return;
    const visitor = freshVisitor();
    const prefix = `fg-first-${process.pid}-${randomInt(1_000_000)}:`;
    // a restarted instance is asked at once: its first answers counted apart let a visitor past the shared limit
    const app = await startApp({ rateLimitSubmit: '2/1m', redisUrl: TEST_REDIS_URL, redisPrefix: prefix });
    try {
      assert.equal((await post(app, 'echo', CONTACT, { accept: JSON_ACCEPT, localAddress: visitor })).status, 200);
      assert.equal(await redis.get(`${prefix}rl-submit:${visitor}`), '1', 'the first request is counted in Redis');
    } finally {
      await app.close();
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
  });

  it('keeps the counts of two installations on one Redis apart by FORMGATE_REDIS_PREFIX', async (t) => {
    const redis = await connectTestRedis(t);
    if (!redis) return;
    const visitor = freshVisitor();
    const prefixes = [`fg-a-${process.pid}:`, `fg-b-${process.pid}:`];
    const dropKeys = async () => {
      const keys = (await Promise.all(prefixes.map((p) => redis.keys(`${p}*`)))).flat();
      if (keys.length > 0) await redis.del(...keys);
    };
    await dropKeys();
    const a = await startApp({ rateLimitSubmit: '2/1m', redisUrl: TEST_REDIS_URL, redisPrefix: prefixes[0] });
    const b = await startApp({ rateLimitSubmit: '2/1m', redisUrl: TEST_REDIS_URL, redisPrefix: prefixes[1] });
    try {
      const onA = await createForm(a, await createAccount(a));
      const onB = await createForm(b, await createAccount(b));
      const send = (app: TestApp, formId: string) => post(app, formId, CONTACT, { accept: JSON_ACCEPT, localAddress: visitor });
      assert.equal((await send(a, onA.id)).status, 200, '1st, on installation A');
      assert.equal((await send(a, onA.id)).status, 200, '2nd, on installation A');
      assertRateLimited(a, await send(a, onA.id));
      assert.equal((await send(b, onB.id)).status, 200, 'installation B counts on its own');
      assert.deepEqual(await redis.keys(`${prefixes[0]}rl-submit:${visitor}`), [`${prefixes[0]}rl-submit:${visitor}`]);
      assert.deepEqual(await redis.keys(`${prefixes[1]}rl-submit:${visitor}`), [`${prefixes[1]}rl-submit:${visitor}`]);
      assert.deepEqual(await redis.keys(`formgate:rl-submit:${visitor}`), [], 'nothing under the default prefix');
    } finally {
      await Promise.allSettled([a.close(), b.close()]);
      await dropKeys().catch(() => undefined);
      redis.disconnect();
    }
  });
});
