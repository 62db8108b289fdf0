import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { openContext, type AppContext } from '../../src/context.js';
import type { Channel } from '../../src/jobs/channels/channel.js';
import { CUT_OFF_ERROR } from '../../src/jobs/claim-query.js';
import { JobQueue } from '../../src/jobs/job-queue.js';
import { enqueueJob } from '../../src/jobs/outbox.js';
import { JobWorker } from '../../src/jobs/worker.js';
import { DeliveryService } from '../../src/services/deliveries.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../helpers/database.js';
import { until, WAIT_DEADLINE_MS } from '../helpers/eventually.js';

const LEASE_MS = 30_000;

/** A channel whose sends wait until the test lets them end. */
function heldChannel() {
  const releases: (() => void)[] = [];
  let started!: () => void;
  const firstStarted = new Promise<void>((resolve) => (started = resolve));
  const channel: Channel = {
    send: () => {
      started();
      return new Promise<void>((resolve) => releases.push(resolve));
    },
  };
  return {
    channel,
    firstStarted,
    releaseAll: () => {
      for (const release of releases.splice(0)) release();
    },
  };
}

describe(`leases (${TEST_DIALECT})`, () => {
  let testDb: TestDatabase;
  let ctx: AppContext;
  let clock: number;
  let deliveries: DeliveryService;

  const enqueue = () => enqueueJob(ctx.database.db, { kind: 'gate', payload: {}, runAt: clock });
  const jobRow = (id: string) => ctx.database.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const triesOf = async (id: string) => (await deliveries.list({ limit: 10 }, clock)).find((d) => d.id === id)!.tries;

  beforeEach(async () => {
    clock = Date.now();
    testDb = await createTestDatabase();
    ctx = await openContext(testConfig(testDb));
    deliveries = new DeliveryService(ctx.database);
  });
  afterEach(async () => {
    await ctx.close();
    await testDb.drop();
  });

  it('leases for 30 s by default and renews the lease while the job runs, so no one else takes a live job', async () => {
    const held = heldChannel();
    const id = await enqueue();
    const w = new JobWorker(ctx.database, { gate: held.channel }, { now: () => clock });
    const run = w.runOnce();
    await held.firstStarted;
    const started = clock;
    assert.deepEqual([(await jobRow(id)).tryStartedAt, (await jobRow(id)).leaseUntil], [started, started + LEASE_MS]);
    assert.deepEqual(await triesOf(id), [
      {
        startedAt: new Date(started).toISOString(),
        finishedAt: null,
        outcome: 'in_progress',
        statusCode: null,
        error: null,
        response: null,
        writtenTo: null,
        target: null,
      },
    ]);

    // a minute of sending, with the heartbeat renewing as it would every 10 s
    for (let i = 0; i < 6; i++) {
      clock += 10_000;
      await w.renewLeases();
    }
    assert.equal((await jobRow(id)).leaseUntil, clock + LEASE_MS);
    const other = new JobWorker(ctx.database, { gate: held.channel }, { now: () => clock });
    assert.equal(await other.runOnce(), 0, 'a renewed lease keeps the job from another worker');
    held.releaseAll();
    assert.equal(await run, 1);
    const job = await jobRow(id);
    assert.deepEqual([job.status, job.attempts, job.leaseUntil, job.tryStartedAt], ['done', 1, null, null]);
    assert.deepEqual(
      (await triesOf(id)).map((t) => t.outcome),
      ['ok'],
    );
  });

  it('renews on its own timer (the heartbeat) while a job runs', async () => {
    const held = heldChannel();
    const id = await enqueue();
    const w = new JobWorker(ctx.database, { gate: held.channel }, { now: () => clock, heartbeatMs: 1 });
    const run = w.runOnce();
    await held.firstStarted;
    clock += 20_000;
    await until('the heartbeat to renew the lease', async () => (await jobRow(id)).leaseUntil === clock + LEASE_MS, WAIT_DEADLINE_MS, 5);
    held.releaseAll();
    assert.equal(await run, 1);
  });

  it('takes over a dead worker’s job once its 30 s lease runs out, and logs the try it cut off as interrupted', async () => {
    const id = await enqueue();
    const claimedAt = clock;
    await new JobQueue(ctx.database).claim(10, clock, LEASE_MS); // a worker that then dies, its heartbeat with it
    const held = heldChannel();
    const w = new JobWorker(ctx.database, { gate: held.channel }, { now: () => clock });
    clock += LEASE_MS - 1;
    assert.equal(await w.runOnce(), 0, 'leased');
    assert.equal((await triesOf(id))[0]!.outcome, 'in_progress');
    clock += 2;
    const cutOff = {
      startedAt: new Date(claimedAt).toISOString(),
      finishedAt: new Date(claimedAt + LEASE_MS).toISOString(),
      outcome: 'interrupted',
      statusCode: null,
      error: CUT_OFF_ERROR,
      response: null,
      writtenTo: null,
      target: null,
    };
    assert.deepEqual(await triesOf(id), [cutOff], 'shown cut off as soon as the lease has run out');

    const run = w.runOnce();
    await held.firstStarted;
    assert.deepEqual(
      await triesOf(id),
      [
        cutOff,
        {
          startedAt: new Date(clock).toISOString(),
          finishedAt: null,
          outcome: 'in_progress',
          statusCode: null,
          error: null,
          response: null,
          writtenTo: null,
          target: null,
        },
      ],
      'recorded when taken over',
    );
    held.releaseAll();
    assert.equal(await run, 1);
    assert.deepEqual(
      (await triesOf(id)).map((t) => t.outcome),
      ['interrupted', 'ok'],
    );
    assert.deepEqual([(await jobRow(id)).status, (await jobRow(id)).attempts], ['done', 2]);
  });

  it('a worker that lost its lease can renew nothing and records nothing over the new owner', async () => {
    const id = await enqueue();
    const queue = new JobQueue(ctx.database);
    const [stale] = await queue.claim(10, clock, LEASE_MS);
    clock += LEASE_MS + 1;
    const [current] = await queue.claim(10, clock, LEASE_MS);
    assert.equal(current!.id, id);
    assert.deepEqual([...(await queue.renew([stale!], clock, LEASE_MS))], [], 'the stale lease is not renewed');
    assert.equal((await jobRow(id)).leaseUntil, clock + LEASE_MS, 'the new owner keeps its lease');
    assert.deepEqual([...(await queue.renew([current!], clock + 10_000, LEASE_MS))], [id]);
    assert.equal(await queue.finish(stale!, { outcome: 'failed', startedAt: clock, finishedAt: clock, error: 'late' }), false);
    assert.equal((await jobRow(id)).status, 'pending');
    assert.equal(await queue.finish(current!, { outcome: 'ok', startedAt: clock, finishedAt: clock + 1 }), true);
    assert.equal((await jobRow(id)).status, 'done');
  });

  it('a worker stalled past its lease stops renewing it, and its late outcome leaves the new owner’s job alone', async () => {
    const held = heldChannel();
    const id = await enqueue();
    const warnings: string[] = [];
    const logger = { info() {}, error() {}, warn: (...args: unknown[]) => void warnings.push(String(args[1])) };
    const w = new JobWorker(ctx.database, { gate: held.channel }, { now: () => clock, logger });
    const run = w.runOnce();
    await held.firstStarted;
    clock += LEASE_MS + 1; // no heartbeat got through meanwhile
    const [current] = await new JobQueue(ctx.database).claim(10, clock, LEASE_MS);
    assert.equal(current!.id, id);
    await w.renewLeases();
    await w.renewLeases();
    assert.deepEqual(warnings, ['lost the lease of deliveries under way; another worker took them over'], 'told once, then left alone');
    assert.equal((await jobRow(id)).leaseUntil, clock + LEASE_MS, 'the new owner’s lease');
    held.releaseAll();
    assert.equal(await run, 1);
    const job = await jobRow(id);
    assert.deepEqual([job.status, job.attempts, job.leaseUntil], ['pending', 2, clock + LEASE_MS], 'the late outcome did not move the job');
  });

  it('fences out a stale worker even after `deliveries retry` has started the job’s count of tries again', async () => {
    const id = await enqueue();
    const queue = new JobQueue(ctx.database);
    const [stale] = await queue.claim(10, clock, LEASE_MS);
    clock += LEASE_MS + 1;
    const [second] = await queue.claim(10, clock, LEASE_MS);
    assert.equal(await queue.finish(second!, { outcome: 'failed', startedAt: clock, finishedAt: clock, error: '550 no' }), true);
    clock += 1;
    assert.deepEqual(await deliveries.retry({ jobId: id }, clock), [id]);
    const [current] = await queue.claim(10, clock, LEASE_MS);
    assert.equal(current!.attempt, stale!.attempt, 'the count started again: it no longer tells the claims apart');
    assert.deepEqual([...(await queue.renew([stale!], clock, LEASE_MS))], []);
    assert.equal(await queue.finish(stale!, { outcome: 'ok', startedAt: clock, finishedAt: clock }), false);
    assert.deepEqual([(await jobRow(id)).status, (await jobRow(id)).leaseUntil], ['pending', clock + LEASE_MS], 'the current owner decides');
    assert.equal(await queue.finish(current!, { outcome: 'ok', startedAt: clock, finishedAt: clock + 1 }), true);
  });

  it('gives back a claim not started on stop without logging a try', async () => {
    const id = await enqueue();
    const queue = new JobQueue(ctx.database);
    const claimed = await queue.claim(10, clock, LEASE_MS);
    await queue.release(claimed, clock);
    const job = await jobRow(id);
    assert.deepEqual([job.attempts, job.leaseUntil, job.tryStartedAt], [0, null, null]);
    assert.deepEqual(await triesOf(id), []);
    clock += LEASE_MS * 2;
    await queue.claim(10, clock, LEASE_MS);
    assert.deepEqual(await triesOf(id).then((tries) => tries.map((t) => t.outcome)), ['in_progress'], 'nothing was cut off');
  });
});
