// The webhook lane's per-destination limits (jobs/lanes.ts, jobs/destination-slots.ts): a receiver
// that never answers holds no more than DESTINATION_LIMIT of a worker's webhook slots, however many
// of its webhooks are due, and one that answered fast and then hangs no more than
// FAST_DESTINATION_LIMIT, so another receiver's webhooks are delivered at once instead of after the
// hung tries' timeout. A state, not a stopwatch (issue 39, item 0): every healthy webhook is
// delivered while every hung try is still open, before the first of them has timed out.
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { openContext, type AppContext } from '../../src/context.js';
import { newWebhookSecret, WebhookChannel } from '../../src/jobs/channels/webhook.js';
import { JobQueue } from '../../src/jobs/job-queue.js';
import { DESTINATION_LIMIT, FAST_DESTINATION_LIMIT } from '../../src/jobs/lanes.js';
import { enqueueJobs } from '../../src/jobs/outbox.js';
import { JobWorker } from '../../src/jobs/worker.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../helpers/database.js';
import { until } from '../helpers/eventually.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { OutboundGuard } from '../../src/net/outbound-guard.js';

// the webhook channel's own timeout (src/net/safe-http.ts): what a hung try holds a slot for
const TRY_TIMEOUT_MS = 10_000;

describe(`webhooks: one destination's limit (${TEST_DIALECT})`, () => {
  let testDb: TestDatabase;
  let ctx: AppContext;
  let hung: WebhookReceiver;
  let healthy: WebhookReceiver;
  let worker: JobWorker | undefined;

  const enqueueWebhooks = (url: string, count: number, runAt = Date.now()) =>
    enqueueJobs(
      ctx.database.db,
      Array.from({ length: count }, (_, i) => ({ kind: 'webhook', payload: { url, formId: 'f1', fields: { i } }, runAt })),
    );
  const startWorker = () => {
    const channel = new WebhookChannel({
      outbound: new OutboundGuard({ allowPrivate: true }),
      signingSecret: async () => newWebhookSecret(),
      timeoutMs: TRY_TIMEOUT_MS,
    });
    worker = new JobWorker(ctx.database, { webhook: channel }, { pollIntervalMs: 50 });
    worker.start();
    return worker;
  };
  /** Queues 20 webhooks to the healthy receiver and waits until all were delivered; answers how many hung tries had ended by then. */
  const deliverHealthy = async (w: JobWorker) => {
    await enqueueWebhooks(healthy.url, 20);
    w.wake();
    await until('every healthy webhook was delivered', () => healthy.requests.length === 20);
    return hung.requests.filter((request) => request.closed).length;
  };

  before(async () => {
    testDb = await createTestDatabase();
    ctx = await openContext(testConfig(testDb));
  });
  after(async () => {
    await ctx?.close();
    await testDb?.drop();
  });
  beforeEach(async () => {
    await ctx.database.db.deleteFrom('jobAttempts').execute();
    await ctx.database.db.deleteFrom('jobs').execute();
    hung = await startWebhookReceiver({ hang: true });
    healthy = await startWebhookReceiver({ status: 200 });
  });
  afterEach(async () => {
    // the receivers first: the hung tries then fail and the worker can stop
    await hung.close();
    await healthy.close();
    await worker?.stop(5_000);
    worker = undefined;
  });

  it('delivers a healthy receiver’s webhooks at once while a hung receiver has many due', async () => {
    await enqueueWebhooks(hung.url, 40, Date.now() - 60_000); // older: in run_at order, all of them come first
    const w = startWorker();
    await until('the hung receiver holds its share of the webhook slots', () => hung.requests.length === DESTINATION_LIMIT);

    const hungTriesEnded = await deliverHealthy(w);
    assert.equal(hungTriesEnded, 0, `the healthy webhooks were delivered while every hung try was open, not after their ${TRY_TIMEOUT_MS} ms timeout`);
    assert.equal(hung.requests.length, DESTINATION_LIMIT, 'no more of the hung receiver’s webhooks were started meanwhile');
  });

  it('leaves slots to the others when a receiver that answered fast starts to hang with many due', async () => {
    hung.mode = { status: 200 };
    await enqueueWebhooks(hung.url, 1);
    const w = startWorker();
    await until('the receiver answered', () => hung.requests.length === 1);
    hung.mode = { hang: true };
    await enqueueWebhooks(hung.url, 40);
    w.wake();
    await until('the receiver holds the slots a fast receiver may', () => hung.requests.length > DESTINATION_LIMIT + 1);

    const hungTriesEnded = await deliverHealthy(w);
    // the first request was answered (200) before the receiver began to hang
    assert.equal(hungTriesEnded, 1, 'the healthy webhooks were delivered while every hung try was open, in the slots the hung receiver cannot take');
    assert.ok(hung.requests.length <= 1 + FAST_DESTINATION_LIMIT, `${hung.requests.length - 1} hung tries at once, at most ${FAST_DESTINATION_LIMIT}`);
  });

  it('claims no more of a destination than its allowance, and DESTINATION_LIMIT of one it is not told of', async () => {
    await enqueueWebhooks(hung.url, 10, Date.now() - 60_000);
    await enqueueWebhooks(healthy.url, 20);
    const queue = new JobQueue(ctx.database);
    const now = Date.now();
    const destinationOf = (url: string) => new URL(url).origin;
    const count = (jobs: { destination: string | null }[], url: string) => jobs.filter((job) => job.destination === destinationOf(url)).length;

    const first = await queue.claim({ webhook: 16 }, now, 30_000);
    assert.equal(count(first, hung.url), DESTINATION_LIMIT, 'the older receiver gets its limit, not the whole lane');
    assert.equal(count(first, healthy.url), DESTINATION_LIMIT);

    const second = await queue.claim({ webhook: 16 }, now, 30_000, { [destinationOf(hung.url)]: 0, [destinationOf(healthy.url)]: 3 });
    assert.equal(count(second, hung.url), 0, 'a destination at its limit gets none');
    assert.equal(count(second, healthy.url), 3);

    const fast = await queue.claim({ webhook: 16 }, now, 30_000, { [destinationOf(hung.url)]: 0, [destinationOf(healthy.url)]: FAST_DESTINATION_LIMIT });
    assert.equal(count(fast, healthy.url), 20 - DESTINATION_LIMIT - 3, 'a fast receiver gets up to its larger allowance');

    const fewer = await queue.claim({ webhook: 1 }, now, 30_000);
    assert.equal(fewer.length, 1, 'the lane’s own limit still holds');
    assert.equal(fewer[0]!.destination, destinationOf(hung.url), 'the oldest due first');
  });
});
