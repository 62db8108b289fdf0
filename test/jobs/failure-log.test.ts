// A delivery given up for good is an error in the log, naming the form and why; one to be tried again is a warning.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openContext, type AppContext } from '../../src/context.js';
import type { Channel } from '../../src/jobs/channels/channel.js';
import { DeliveryError } from '../../src/domain/delivery-error.js';
import { enqueueJob } from '../../src/jobs/outbox.js';
import { JobWorker } from '../../src/jobs/worker.js';
import { testConfig } from '../helpers/app.js';
import { collectingLogger } from '../helpers/log-lines.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../helpers/database.js';

describe(`the delivery log lines (${TEST_DIALECT})`, () => {
  let database: TestDatabase;
  let ctx: AppContext;
  const { logger, lines } = collectingLogger();

  before(async () => {
    database = await createTestDatabase();
    ctx = await openContext(testConfig(database));
  });

  after(async () => {
    await ctx?.close();
    await database?.drop();
  });

  it('logs a delivery failed for good at error level (50) with the form and the reason', async () => {
    const failing: Channel = {
      async send(job) {
        if ((job.payload as { formId: string }).formId === 'f_gone')
          throw new DeliveryError('the receiver answered 410 Gone', { permanent: true, statusCode: 410 });
        throw new DeliveryError('the receiver answered 503', { permanent: false, statusCode: 503 });
      },
    };
    const gone = await enqueueJob(ctx.database.db, { kind: 'webhook', payload: { formId: 'f_gone', url: 'https://example.com/hook' }, runAt: Date.now() });
    const busy = await enqueueJob(ctx.database.db, { kind: 'webhook', payload: { formId: 'f_busy', url: 'https://example.com/hook' }, runAt: Date.now() });
    const worker = new JobWorker(ctx.database, { webhook: failing }, { logger });
    assert.equal(await worker.runOnce(), 2);

    const given = lines.find((line) => line.jobId === gone);
    assert.ok(given, JSON.stringify(lines));
    assert.equal(given.level, 50);
    assert.equal(given.formId, 'f_gone');
    assert.equal(given.reason, 'the receiver answered 410 Gone');
    assert.equal(given.statusCode, 410);
    assert.match(given.msg, /failed for good: the receiver answered 410 Gone/);

    const retried = lines.find((line) => line.jobId === busy);
    assert.ok(retried);
    assert.equal(retried.level, 40, 'a delivery to be tried again is a warning');
    assert.equal(retried.formId, 'f_busy');
    assert.equal(retried.outcome, 'retry');
  });
});
