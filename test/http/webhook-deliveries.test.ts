import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { startApp, type TestApp } from '../helpers/app.js';
import { cliEnv, runCli } from '../helpers/cli.js';
import { eventually } from '../helpers/eventually.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const from = visitorAddresses(10);

/** The environment of a `formgate` command on the running app's database. */
function cliEnvOf(app: TestApp): NodeJS.ProcessEnv {
  const db = app.ctx.config.database;
  const url = db.dialect === 'sqlite' ? `sqlite:${db.file}` : db.url;
  return cliEnv({ url, dataDir: app.ctx.config.dataDir, drop: async () => undefined });
}

describe('webhook deliveries', () => {
  let app: TestApp;
  let receiver: WebhookReceiver;
  let account: Account;
  before(async () => {
    receiver = await startWebhookReceiver();
    app = await startApp({ allowPrivateWebhooks: 'true' }, { delivery: true });
    account = await createAccount(app);
  });
  after(async () => {
    await app.close();
    await receiver.close();
  });

  it('posts the fields as one flat JSON object, signed with the form’s secret (Standard Webhooks), webhook-id = submission id', async () => {
    receiver.mode = { status: 200 };
    const form = await createForm(app, account, { webhookUrl: receiver.url });
    const before = receiver.requests.length;
    const answer = await postJson(app, form.id, { name: 'Ada', tags: ['a', 'b'], _email: { subject: 'not sent' } }, from());
    assert.equal(answer.status, 200);
    const request = await eventually(async () => receiver.requests[before], 'the webhook');
    assert.deepEqual(JSON.parse(request.rawBody), { name: 'Ada', tags: ['a', 'b'] });
    assert.equal(request.headers['webhook-id'], answer.body.id);
    const secret = await app.ctx.forms.webhookSecret(form.id);
    assert.match(secret, /^whsec_/);
    const verified = new Webhook(secret).verify(request.rawBody, {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    });
    assert.deepEqual(verified, { name: 'Ada', tags: ['a', 'b'] });
  });

  it('retries a failing receiver, recording each attempt, and delivers once it recovers', async () => {
    receiver.mode = { failures: 1 };
    const form = await createForm(app, account, { webhookUrl: receiver.url });
    const answer = await postJson(app, form.id, { name: 'Grace' }, from());
    const job = await eventually(
      () =>
        app.ctx.database.db
          .selectFrom('jobs')
          .selectAll()
          .where('submissionId', '=', answer.body.id)
          .where('kind', '=', 'webhook')
          .where('attempts', '=', 1)
          .where('leaseUntil', 'is', null)
          .executeTakeFirst(),
      'the first, failed attempt',
    );
    assert.equal(job.status, 'pending');
    assert.ok(job.runAt > Date.now(), 'the retry waits its backoff');
    assert.match(job.lastError ?? '', /500/);
    const [attempt] = await app.ctx.database.db.selectFrom('jobAttempts').selectAll().where('jobId', '=', job.id).execute();
    assert.equal(attempt!.outcome, 'retry');
    assert.equal(attempt!.statusCode, 500);
    // bring the retry forward instead of waiting out the backoff
    await app.ctx.database.db.updateTable('jobs').set({ runAt: Date.now() }).where('id', '=', job.id).execute();
    const done = await eventually(
      () => app.ctx.database.db.selectFrom('jobs').selectAll().where('id', '=', job.id).where('status', '=', 'done').executeTakeFirst(),
      'the retried delivery',
    );
    assert.equal(done.attempts, 2);
    const tries = await app.ctx.database.db
      .selectFrom('jobAttempts')
      .select(['outcome', 'statusCode'])
      .where('jobId', '=', job.id)
      .orderBy('startedAt')
      .execute();
    assert.deepEqual(
      tries.map((t) => [t.outcome, t.statusCode]),
      [
        ['retry', 500],
        ['ok', 200],
      ],
      'the delivery log records the receiver’s answer of the try that went through too',
    );
    const ids = receiver.requests.filter((r) => r.headers['webhook-id'] === answer.body.id);
    assert.equal(ids.length, 2, 'the same webhook-id on the retry, so the receiver can drop duplicates');
  });

  it('shows a failed delivery in `formgate deliveries list` with every try, and `deliveries retry` sends it again', async () => {
    // a permanent refusal that leaves the webhook on (410 Gone turns it off: webhook-endpoints.test.ts)
    receiver.mode = { status: 404 };
    const form = await createForm(app, account, { webhookUrl: receiver.url });
    const answer = await postJson(app, form.id, { name: 'Hedy' }, from());
    const failed = await eventually(
      () => app.ctx.database.db.selectFrom('jobs').selectAll().where('submissionId', '=', answer.body.id).where('status', '=', 'failed').executeTakeFirst(),
      'the permanent failure',
    );
    const env = cliEnvOf(app);
    const listed = await runCli(env, ['deliveries', 'list', '--form', form.id, '--status', 'failed', '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    const [delivery, ...others] = JSON.parse(listed.stdout).deliveries;
    assert.equal(others.length, 0, 'only this form’s failed delivery');
    assert.equal(delivery.id, failed.id);
    assert.equal(delivery.kind, 'webhook');
    assert.equal(delivery.submissionId, answer.body.id);
    assert.equal(delivery.nextTryAt, null);
    assert.deepEqual(
      delivery.tries.map((t: any) => [t.outcome, t.statusCode]),
      [['failed', 404]],
    );
    assert.match(delivery.lastError, /404/);

    const notFailed = await runCli(env, [
      'deliveries',
      'retry',
      '--job',
      (await app.ctx.database.db.selectFrom('jobs').select('id').where('status', '=', 'done').executeTakeFirstOrThrow()).id,
      '--json',
    ]);
    assert.equal(notFailed.code, 1);
    assert.equal(JSON.parse(notFailed.stdout).error.code, 'conflict');
    const unknown = await runCli(env, ['deliveries', 'retry', '--job', 'nope', '--json']);
    assert.equal(JSON.parse(unknown.stdout).error.code, 'not_found');
    const badStatus = await runCli(env, ['deliveries', 'list', '--status', 'lost', '--json']);
    assert.equal(JSON.parse(badStatus.stdout).error.code, 'validation_error');

    receiver.mode = { status: 200 };
    const before = receiver.requests.length;
    const retried = await runCli(env, ['deliveries', 'retry', '--job', failed.id, '--json']);
    assert.equal(retried.code, 0, retried.stderr);
    assert.deepEqual(JSON.parse(retried.stdout).queued, [failed.id]);
    await eventually(async () => receiver.requests.slice(before).some((r) => r.headers['webhook-id'] === answer.body.id), 'the retried webhook');
    const done = await eventually(
      () => app.ctx.database.db.selectFrom('jobs').selectAll().where('id', '=', failed.id).where('status', '=', 'done').executeTakeFirst(),
      'the job done',
    );
    assert.equal(done.attempts, 1, 'a fresh retry budget');
    const again = await runCli(env, ['deliveries', 'retry', '--form', form.id, '--json']);
    assert.deepEqual(JSON.parse(again.stdout).queued, [], 'nothing failed is left');
  });

  it('prints the signing secret with `formgate forms webhook-secret`', async () => {
    const form = await createForm(app, account);
    const result = await runCli(cliEnvOf(app), ['forms', 'webhook-secret', '--form', form.id, '--json']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(JSON.parse(result.stdout).secret, await app.ctx.forms.webhookSecret(form.id));
  });
});
