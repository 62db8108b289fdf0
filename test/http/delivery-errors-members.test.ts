// Issue 38, item 16: a hosting instance's tenants read that a webhook's target is private, never the
// address behind it ("vm resolves to 127.0.0.1"); the instance admin's views keep every detail.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../src/ids.js';
import { InstanceHealthService } from '../../src/services/instance-health.js';
import { PRIVATE_TARGET_FOR_TENANTS } from '../../src/domain/delivery-error.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { createAccount, createForm } from '../helpers/fixtures.js';
import { postJson } from '../helpers/submit.js';

// what safe-http.ts records for a webhook whose host name resolves to loopback
const REFUSED =
  'refused: 127.0.0.1 is a loopback address, not a public one (vm resolves to 127.0.0.1); to call a service on your own network, allow it on the admin page (Webhooks to private networks) or in FORMGATE_WEBHOOK_ALLOW';

describe(`delivery errors as a form's members read them (${TEST_DIALECT})`, () => {
  let app: TestApp;
  before(async () => {
    app = await startApp();
  });
  after(() => app?.close());

  it('hosting: members read only that the target is private; team: what the admin reads; the admin page keeps the detail', async () => {
    const account = await createAccount(app);
    const form = await createForm(app, account);
    const posted = await postJson(app, form.id, { message: 'hello' });
    assert.equal(posted.status, 200);
    const now = Date.now();
    const jobId = newId();
    await app.ctx.database.db
      .insertInto('jobs')
      .values({
        id: jobId,
        kind: 'webhook',
        lane: 'webhook',
        payload: JSON.stringify({ url: 'http://vm/hook', formId: form.id, fields: {} }),
        status: 'failed',
        runAt: now,
        leaseUntil: null,
        lastError: REFUSED,
        destination: 'http://vm',
        submissionId: posted.body.id,
        idempotencyKey: newId(),
        createdAt: now,
        updatedAt: now,
        attempts: 1,
      })
      .execute();
    await app.ctx.database.db
      .insertInto('jobAttempts')
      .values({ id: newId(), jobId, startedAt: now, finishedAt: now, outcome: 'failed', statusCode: null, error: REFUSED, response: null, writtenTo: null })
      .execute();

    const read = async () => {
      const bySubmission = (await app.ctx.deliveries.forSubmission(posted.body.id)).find((d) => d.id === jobId)!;
      const page = await app.ctx.deliveries.listForMember(account.userId, form.id, { limit: 50, after: null });
      const inLog = page.deliveries.find((d) => d.id === jobId)!;
      const tested = (await app.ctx.testSubmissions.outcome(account.userId, form.id, posted.body.id)).deliveries.find((d) => d.id === jobId)!;
      return [bySubmission.lastError, bySubmission.tries[0]!.error, inLog.lastError, inLog.tries[0]!.error, tested.lastError];
    };

    assert.equal(app.ctx.instance.usage(), 'hosting');
    assert.deepEqual(await read(), Array(5).fill(PRIVATE_TARGET_FOR_TENANTS));
    // the admin's page of failing channels and the CLI's list keep the detail
    const failing = (await new InstanceHealthService(app.ctx.database).read()).failing.find((f) => f.formId === form.id);
    assert.equal(failing?.lastError, REFUSED);
    assert.equal((await app.ctx.deliveries.list({ formId: form.id, limit: 10 })).find((d) => d.id === jobId)?.lastError, REFUSED);

    await app.ctx.instance.setUsage('team');
    try {
      assert.deepEqual(await read(), Array(5).fill(REFUSED));
    } finally {
      await app.ctx.instance.setUsage('hosting');
    }
  });
});
