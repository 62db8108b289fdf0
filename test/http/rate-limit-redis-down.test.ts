import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { until } from '../helpers/eventually.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { collectingLogger } from '../helpers/log-lines.js';
import { freePort, startPrivateRedis, type PrivateRedis } from '../helpers/private-redis.js';
import { assertProblem } from '../helpers/problems.js';
import { postJson } from '../helpers/submit.js';

// The rate limits' counters live in a private redis-server here, which the tests stop and pause.
describe('rate limits while Redis is down or hung', () => {
  let redis: PrivateRedis;
  let app: TestApp;
  let account: Account;
  let formId: string;
  const log = collectingLogger();

  before(async () => {
    redis = await startPrivateRedis();
    app = await startApp({ redisUrl: redis.url, rateLimitApi: '3/1m', rateLimitSubmit: '100/1m' }, { logger: log.logger });
    account = await createAccount(app);
    formId = (await createForm(app, account)).id;
  });

  after(async () => {
    await app?.close();
    await redis?.close();
  });

  it('counts the API in the process while Redis is down: 200 up to the limit, then 429, never 500', async () => {
    await redis.stop('SIGKILL');
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const answer = await app.api('GET', '/me', { token: account.token });
      statuses.push(answer.status);
      if (answer.status === 429) assertProblem(app, answer, 'rate_limited');
    }
    // the form's creation may have been counted in Redis or here, depending on when the client connected
    assert.ok(
      statuses.every((status) => status === 200 || status === 429),
      `answered ${statuses}`,
    );
    assert.deepEqual(statuses.slice(-2), [429, 429], `refused past the limit of 3: ${statuses}`);
    assert.ok(
      statuses.slice(0, 2).every((status) => status === 200),
      `served up to the limit: ${statuses}`,
    );
    await redis.start();
  });

  it('answers a submission while Redis is hung (accepts the connection, answers nothing)', async () => {
    const keys = redis.client();
    // back after the restart of the test before: the submit surface's count is in Redis again
    await until(
      'the submit surface counts in Redis',
      async () => (await postJson(app, formId, { n: 'probe' })).status === 200 && (await keys.keys('formgate:rl-submit:*')).length > 0,
      10_000,
      100,
    );
    redis.pause();
    try {
      const hungFrom = log.lines.length;
      // the first waits out the command timeout (1 s) of each Redis step, then counts here: answered, not held for ever
      assert.equal((await postJson(app, formId, { message: 'while Redis is hung' })).status, 200);
      // then the unanswered heartbeat drops the connection (its log says so): submissions stop waiting on Redis at all
      await until(
        'the heartbeat dropped the hung Redis',
        async () => log.lines.slice(hungFrom).some((line) => line.msg === 'Redis does not answer: rate limits count in this process until it is back'),
        10_000,
        100,
      );
      assert.equal((await postJson(app, formId, { message: 'after the drop' })).status, 200);
    } finally {
      redis.resume();
    }
  });

  it('serves an instance started while Redis is down, counting in the process', async () => {
    const alone = await startApp({ redisUrl: `redis://127.0.0.1:${await freePort()}`, rateLimitApi: '2/1m', rateLimitSubmit: '100/1m', startupWait: '1s' });
    try {
      const owner = await createAccount(alone);
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await alone.api('GET', '/me', { token: owner.token })).status);
      assert.deepEqual(statuses, [200, 200, 429]);
    } finally {
      await alone.close();
    }
  });
});
