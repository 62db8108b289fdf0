// Delivery records go after FORMGATE_DELIVERY_RETENTION_DAYS: finished jobs with their tries, and old .eml files; nothing else.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { JobStatus } from '../../src/db/schema/job.js';
import { openContext, type AppContext } from '../../src/context.js';
import { purgeDeliveryRecords } from '../../src/jobs/delivery-purge.js';
import { purgeFinishedJobs } from '../../src/jobs/finished-jobs.js';
import { enqueueJob } from '../../src/jobs/outbox.js';
import { outboxDir } from '../../src/mail/transport.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../helpers/database.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 27, 12);

describe(`the delivery record purge (${TEST_DIALECT})`, () => {
  let database: TestDatabase;
  let ctx: AppContext;

  before(async () => {
    database = await createTestDatabase();
    ctx = await openContext(testConfig(database));
  });

  after(async () => {
    await ctx?.close();
    await database?.drop();
  });

  beforeEach(async () => {
    await ctx.database.db.deleteFrom('jobs').execute();
  });

  /** A job in `status` whose last change (and due time) was `ageDays` before NOW, with `tries` tries. */
  async function job(status: JobStatus, ageDays: number, tries = 1): Promise<string> {
    const at = NOW - ageDays * DAY;
    const id = await enqueueJob(ctx.database.db, { kind: 'webhook', payload: { url: 'https://example.com/hook' }, runAt: at });
    await ctx.database.db.updateTable('jobs').set({ status, runAt: at, updatedAt: at, createdAt: at, attempts: tries }).where('id', '=', id).execute();
    for (let n = 0; n < tries; n++)
      await ctx.database.db
        .insertInto('jobAttempts')
        .values({ id: `${id}-${n}`, jobId: id, startedAt: at, finishedAt: at, outcome: status === 'done' ? 'ok' : status === 'failed' ? 'failed' : 'retry' })
        .execute();
    return id;
  }

  async function jobIds(): Promise<string[]> {
    return (await ctx.database.db.selectFrom('jobs').select('id').execute()).map((r) => r.id).sort();
  }

  async function attemptJobIds(): Promise<string[]> {
    return [...new Set((await ctx.database.db.selectFrom('jobAttempts').select('jobId').execute()).map((r) => r.jobId))].sort();
  }

  it('removes old delivered and given-up jobs with their tries, and keeps recent and unfinished ones', async () => {
    const oldDone = await job('done', 31, 2);
    const oldFailed = await job('failed', 45, 3);
    const recentDone = await job('done', 29);
    const recentFailed = await job('failed', 1);
    const oldPending = await job('pending', 60, 0);
    const oldRetrying = await job('pending', 40, 2);

    const removed = await purgeDeliveryRecords(ctx.database, ctx.config, NOW);
    assert.deepEqual(removed, { jobs: 2, files: 0, more: false });
    const kept = [recentDone, recentFailed, oldPending, oldRetrying].sort();
    assert.deepEqual(await jobIds(), kept);
    assert.deepEqual(await attemptJobIds(), [recentDone, recentFailed, oldRetrying].sort());
    assert.ok(![oldDone, oldFailed].some((id) => kept.includes(id)));

    assert.deepEqual(await purgeDeliveryRecords(ctx.database, ctx.config, NOW), { jobs: 0, files: 0, more: false }, 'a second run finds nothing');
  });

  it('goes in batches, stops at its cap and says there is more', async () => {
    for (let n = 0; n < 5; n++) await job('done', 31 + n);
    assert.deepEqual(await purgeFinishedJobs(ctx.database, NOW - 30 * DAY, { batchSize: 2, maxBatches: 2 }), { jobs: 4, more: true });
    assert.equal((await jobIds()).length, 1);
    assert.deepEqual(await purgeFinishedJobs(ctx.database, NOW - 30 * DAY, { batchSize: 2, maxBatches: 2 }), { jobs: 1, more: false });
    assert.deepEqual(await jobIds(), []);
  });

  it('lets several instances purge at once: each job is removed once, none fails', async () => {
    for (let n = 0; n < 30; n++) await job('done', 31);
    const runs = await Promise.all([1, 2, 3].map(() => purgeFinishedJobs(ctx.database, NOW - 30 * DAY, { batchSize: 4, maxBatches: 20 })));
    assert.equal(
      runs.reduce((sum, run) => sum + run.jobs, 0),
      30,
    );
    assert.deepEqual(await jobIds(), []);
  });

  it('keeps everything when the retention is off', async () => {
    const old = await job('done', 400);
    const dir = outboxDir(ctx.config);
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'off.eml');
    fs.writeFileSync(file, 'Subject: kept\r\n\r\n');
    fs.utimesSync(file, new Date(NOW - 400 * DAY), new Date(NOW - 400 * DAY));
    assert.equal(await purgeDeliveryRecords(ctx.database, { ...ctx.config, deliveryRetentionMs: null }, NOW), null);
    assert.deepEqual(await jobIds(), [old]);
    assert.ok(fs.existsSync(file));
    fs.rmSync(file);
  });

  it('removes old .eml files of the outbox folder and nothing else there', async () => {
    const dir = outboxDir(ctx.config);
    fs.mkdirSync(path.join(dir, 'kept'), { recursive: true });
    const write = (name: string, ageDays: number) => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, 'Subject: a form\r\n\r\nhello\r\n');
      const at = new Date(NOW - ageDays * DAY);
      fs.utimesSync(file, at, at);
      return file;
    };
    const oldMail = write('2026-10-01T00-00-00-000Z-a.eml', 31);
    const olderMail = write('2026-09-01T00-00-00-000Z-b.eml', 90);
    const newMail = write('2026-11-26T00-00-00-000Z-c.eml', 1);
    const notMail = write('notes.txt', 90);
    const nested = write('kept/2026-09-01T00-00-00-000Z-d.eml', 90);

    assert.deepEqual(await purgeDeliveryRecords(ctx.database, ctx.config, NOW), { jobs: 0, files: 2, more: false });
    assert.ok(!fs.existsSync(oldMail) && !fs.existsSync(olderMail));
    assert.ok(fs.existsSync(newMail) && fs.existsSync(notMail) && fs.existsSync(nested));
  });
});
