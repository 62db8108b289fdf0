import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { openContext, type AppContext } from '../../src/context.js';
import { EmailChannel } from '../../src/jobs/channels/email.js';
import { newWebhookSecret, WebhookChannel } from '../../src/jobs/channels/webhook.js';
import { destinationOf, laneOf } from '../../src/jobs/lanes.js';
import { enqueueJob } from '../../src/jobs/outbox.js';
import { JobWorker, type WorkerOptions } from '../../src/jobs/worker.js';
import { createMailer, type Mailer } from '../../src/mail/transport.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../helpers/database.js';
import { until } from '../helpers/eventually.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { OutboundGuard } from '../../src/net/outbound-guard.js';

const RETRY = { maxAttempts: 5, baseMs: 60_000, factor: 2, capMs: 600_000 };

describe(`delivery lanes and destinations (${TEST_DIALECT})`, () => {
  let sink: SmtpSink;
  let testDb: TestDatabase;
  let ctx: AppContext;
  let mailer: Mailer;
  let clock: number;
  const receivers: WebhookReceiver[] = [];
  const workers: JobWorker[] = [];

  const worker = (options: WorkerOptions = {}) => {
    const channels = {
      email: new EmailChannel(mailer, 'example.test'),
      webhook: new WebhookChannel({ outbound: new OutboundGuard({ allowPrivate: true }), signingSecret: async () => newWebhookSecret(), timeoutMs: 30_000 }),
    };
    const w = new JobWorker(ctx.database, channels, { now: () => clock, random: () => 1, retry: RETRY, pollIntervalMs: 20, ...options });
    workers.push(w);
    return w;
  };
  const receiver = async (mode: Parameters<typeof startWebhookReceiver>[0]) => {
    const r = await startWebhookReceiver(mode);
    receivers.push(r);
    return r;
  };
  const enqueueEmail = (subject: string, runAt = clock) =>
    enqueueJob(ctx.database.db, { kind: 'email', payload: { to: ['ann@example.com'], subject, text: subject }, runAt });
  const enqueueWebhook = (url: string, runAt = clock) =>
    enqueueJob(ctx.database.db, { kind: 'webhook', payload: { url, formId: 'f1', fields: { n: 1 } }, runAt });
  const jobRow = (id: string) => ctx.database.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  before(async () => {
    sink = await startSmtpSink();
  });
  after(async () => {
    await sink.close();
  });
  beforeEach(async () => {
    clock = Date.now();
    sink.messages.length = 0;
    sink.mode = 'accept';
    testDb = await createTestDatabase();
    ctx = await openContext(testConfig(testDb, { smtpUrl: sink.url }));
    mailer = createMailer(ctx.config);
  });
  afterEach(async () => {
    // the receivers first: a held webhook then fails and its worker can stop
    for (const r of receivers.splice(0)) await r.close();
    for (const w of workers.splice(0)) await w.stop(5_000);
    mailer.close();
    await ctx.close();
    await testDb.drop();
  });

  it('names each job’s lane by its channel and its destination by where it goes', () => {
    assert.deepEqual(['email', 'notification', 'autoresponder', 'webhook', 'slack', 'carrier-pigeon'].map(laneOf), [
      'email',
      'email',
      'email',
      'webhook',
      'slack',
      'email',
    ]);
    assert.equal(destinationOf('notification', { formId: 'f1' }), 'smtp');
    assert.equal(destinationOf('slack', { formId: 'f1' }), 'slack');
    assert.equal(destinationOf('webhook', { url: 'HTTPS://Hooks.Example.com:443/a?b=c' }), 'https://hooks.example.com');
    assert.equal(destinationOf('webhook', { url: 'http://127.0.0.1:8080/a' }), 'http://127.0.0.1:8080');
    assert.equal(destinationOf('webhook', { url: 'not a url' }), 'webhook');
  });

  it('sends email at once while a slow webhook receiver holds every webhook slot', async () => {
    const slow = await receiver({ hang: true }); // answers nothing until the test ends
    // the webhooks are older: one queue in run_at order would hand the worker only them
    for (let i = 0; i < 6; i++) await enqueueWebhook(slow.url, clock - 1_000);
    const w = worker({ concurrency: 2 });
    w.start();
    await until('two webhooks are waiting on the receiver', () => slow.requests.length === 2);
    for (let i = 0; i < 4; i++) await enqueueEmail(`Mail ${i}`);
    w.wake();
    await sink.waitFor(4);
    assert.equal(slow.requests.length, 2, 'no more webhooks in flight than the webhook lane has slots');
    const waiting = await ctx.database.db.selectFrom('jobs').select('id').where('kind', '=', 'webhook').where('leaseUntil', 'is', null).execute();
    assert.equal(waiting.length, 4, 'the other webhooks were not claimed: they wait for a webhook slot');
  });

  it('brings a destination’s backed-off jobs forward at its first success; a destination still down stays backed off', async () => {
    const down = await receiver({ status: 503 });
    sink.mode = 'transient';
    const mails = [await enqueueEmail('A'), await enqueueEmail('B')];
    const hook = await enqueueWebhook(down.url);
    assert.equal(await worker().runOnce(), 3);
    for (const id of [...mails, hook]) assert.equal((await jobRow(id)).runAt, clock + RETRY.baseMs, 'backed off');

    // the SMTP server is back: a new email goes through, and the waiting ones follow at once
    sink.mode = 'accept';
    clock += 5_000;
    const fresh = await enqueueEmail('C');
    assert.equal(await worker().runOnce(), 1);
    assert.equal(sink.messages.length, 1);
    for (const id of mails) assert.equal((await jobRow(id)).runAt, clock, 'brought forward to the success');
    assert.equal((await jobRow(hook)).runAt, clock - 5_000 + RETRY.baseMs, 'the webhook receiver, still down, is not');
    assert.equal(await worker().runOnce(), 2, 'the backed-off emails are due now');
    assert.deepEqual(sink.messages.map((m) => m.parsed.subject).sort(), ['A', 'B', 'C']);
    for (const id of [...mails, fresh]) assert.equal((await jobRow(id)).status, 'done');

    // a success at another receiver does not bring forward the one still down
    const up = await receiver({ status: 200 });
    await enqueueWebhook(up.url);
    assert.equal(await worker().runOnce(), 1);
    assert.equal(up.requests.length, 1);
    assert.equal((await jobRow(hook)).runAt, clock - 5_000 + RETRY.baseMs, 'another origin is another destination');
    assert.equal(await worker().runOnce(), 0);
  });
});
