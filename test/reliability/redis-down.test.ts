// Redis down (issue 18): two instances of one installation share their rate-limit counters in a
// private redis-server; it is stopped (SIGTERM, SIGKILL), hung (SIGSTOP) and started again on the
// same port under a steady stream of submissions. While it is away each instance counts on its own
// (the rate limits' insurance limiter), every request is answered within the deadline with 200 or
// 429 rate_limited, and once it is back the instances count together again.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Redis } from 'ioredis';
import { startApp, type Answer, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { until } from '../helpers/eventually.js';
import { printFigures } from '../helpers/figures.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { startPrivateRedis, type PrivateRedis } from '../helpers/private-redis.js';
import { HANG_MS, SteadyStream } from '../helpers/steady-stream.js';
import { postJson, storedRows, visitorAddresses } from '../helpers/submit.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const SUBMIT_LIMIT = 5;
/** How many of the stream's submissions each outage must answer before Redis comes back (about 1.5 s of it). */
const OUTAGE_ANSWERS = 35;
const nextVisitor = visitorAddresses(183);

describe('reliability: Redis down', { timeout: 90_000 }, () => {
  let redis: PrivateRedis;
  let keys: Redis;
  let receiver: WebhookReceiver;
  let a: TestApp;
  let b: TestApp;
  let database: TestDatabase;
  let account: Account;
  let formId: string;
  let stream: SteadyStream;
  let faults = 0;
  // requests outside the stream: the shared-count checks, the probes and the API calls
  let requestsOutside = 0;
  const acknowledgedOutside: string[] = [];
  const apiStatuses: Record<string, number> = {};
  const checkStatuses: Record<string, number> = {};

  before(async () => {
    redis = await startPrivateRedis();
    keys = redis.client();
    receiver = await startWebhookReceiver();
    const env = { redisUrl: redis.url, rateLimitSubmit: `${SUBMIT_LIMIT}/1m`, rateLimitApi: '100000/1m', allowPrivateWebhooks: 'true' };
    // two instances of one installation (one database); A runs the delivery worker
    database = await createTestDatabase();
    a = await startApp(env, { delivery: true, database });
    b = await startApp(env, { database });
    account = await createAccount(a);
    formId = (await createForm(a, account, { webhookUrl: receiver.url })).id;
    // a new visitor each time: the stream itself is never over the limit
    stream = new SteadyStream((i) => postJson(i % 2 === 0 ? a : b, formId, message(`stream ${i}`), nextVisitor()), { everyMs: 40, max: 1_500 });
  });

  after(async () => {
    await stream?.stop();
    await b?.close();
    await a?.close();
    await receiver?.close();
    await redis?.close();
    await database?.drop();
  });

  function message(text: string) {
    return { email: 'visitor@example.com', message: `${text} ${Math.random()}` };
  }

  async function submit(app: TestApp, localAddress: string): Promise<Answer> {
    requestsOutside++;
    const answer = await postJson(app, formId, message('check'), { localAddress });
    checkStatuses[answer.status] = (checkStatuses[answer.status] ?? 0) + 1;
    if (answer.status === 200) acknowledgedOutside.push(answer.body.id);
    return answer;
  }

  /** A management API call answers too, whatever Redis does (its rate limit counts there as well). */
  async function callApi(): Promise<void> {
    requestsOutside++;
    // answered at all, and cleanly: the limiter's own deadlines (Redis's command timeout, the heartbeat) decide when it stops waiting
    const answer = await a.api('GET', `/forms/${formId}`, { token: account.token });
    apiStatuses[answer.status] = (apiStatuses[answer.status] ?? 0) + 1;
    assert.ok(answer.status === 200 || answer.status === 429, `the API answered ${answer.status} ${JSON.stringify(answer.body)}`);
  }

  /** With the limit at 5 a minute, 3 submissions on A and 3 on B: the 6th is refused only if A and B count together. */
  async function assertSharedCounting(): Promise<void> {
    const { localAddress } = nextVisitor();
    const statuses: number[] = [];
    for (let i = 0; i < SUBMIT_LIMIT + 1; i++) statuses.push((await submit(i < 3 ? a : b, localAddress)).status);
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429], 'the instances share one count');
    assert.equal(await keys.exists(`formgate:rl-submit:${localAddress}`), 1, 'the count is in Redis');
  }

  /** Each instance counts on its own while Redis is away: 5 on A pass, the 6th is refused by A's own count. */
  async function assertOwnCounting(): Promise<void> {
    const { localAddress } = nextVisitor();
    const statuses: number[] = [];
    for (let i = 0; i < SUBMIT_LIMIT + 1; i++) statuses.push((await submit(a, localAddress)).status);
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429], 'A counts on its own');
  }

  /** Both instances are talking to Redis again: a probe submission on each leaves its count there. */
  async function waitUntilBothCountInRedis(): Promise<void> {
    for (const app of [a, b]) {
      await until(
        'the instance counts in Redis again',
        async () => {
          const { localAddress } = nextVisitor();
          await submit(app, localAddress);
          return (await keys.exists(`formgate:rl-submit:${localAddress}`)) === 1;
        },
        20_000,
        100,
      );
    }
  }

  async function outage(name: string, inject: () => Promise<void> | void, lift: () => Promise<void> | void): Promise<void> {
    stream.phase = `Redis ${name}`;
    await inject();
    faults++;
    const phase = stream.phase;
    await assertOwnCounting();
    await callApi();
    // the outage lasts until the stream has been answered through it, not for a fixed time
    await until(
      `${OUTAGE_ANSWERS} stream answers while Redis is ${name}`,
      () => stream.results.filter((r) => r.phase === phase).length >= OUTAGE_ANSWERS,
      HANG_MS,
      50,
    );
    stream.phase = `Redis back after ${name}`;
    await lift();
    await waitUntilBothCountInRedis();
    await assertSharedCounting();
    await callApi();
  }

  it('keeps answering every submission while Redis is stopped, killed or hung, and shares the counts again once it is back', async () => {
    stream.phase = 'Redis up';
    stream.start();
    await waitUntilBothCountInRedis(); // their clients connect in the background
    await assertSharedCounting();
    await outage(
      'stopped (SIGTERM)',
      () => redis.stop('SIGTERM'),
      () => redis.start(),
    );
    await outage(
      'killed (SIGKILL)',
      () => redis.stop('SIGKILL'),
      () => redis.start(),
    );
    await outage(
      'hung (SIGSTOP)',
      () => redis.pause(),
      () => redis.resume(),
    );
    await stream.stop();

    stream.assertAnsweredCleanly({ 429: 'rate_limited' });
    const acknowledged = [...stream.acknowledged(), ...acknowledgedOutside];
    const stored = new Set((await storedRows(a, formId)).map((row) => row.id));
    const missing = acknowledged.filter((id) => !stored.has(id));
    assert.deepEqual(missing, [], 'every acknowledged submission is stored');

    // the deliveries of every acknowledged submission (Redis plays no part in them)
    const delivered = () => new Set(receiver.requests.map((r) => r.headers['webhook-id']));
    await until('every acknowledged submission is delivered', () => acknowledged.every((id) => delivered().has(id)), 30_000, 100);
    const received = receiver.requests.length;

    printFigures('Redis down', {
      requestsSent: stream.requestsSent + requestsOutside,
      faultsInjected: faults,
      submissionsAcknowledged: acknowledged.length,
      submissionsFound: acknowledged.length - missing.length,
      deliveriesExpected: acknowledged.length,
      delivered: delivered().size,
      duplicated: received - delivered().size,
      more: {
        'stream answers by status': JSON.stringify(stream.statusCounts()),
        'count checks and probes by status': JSON.stringify(checkStatuses),
        'API answers by status': JSON.stringify(apiStatuses),
        'slowest stream answer (ms)': stream.slowestMs(),
        'stream answers slower than 1 s': stream.results.filter((r) => r.ms > 1_000).length,
      },
    });
    assert.ok(acknowledged.length > 0);
  });
});
