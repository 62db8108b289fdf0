import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openContext, type AppContext } from '../../src/context.js';
import { testConfig } from '../helpers/app.js';
import { cliEnv, spawnServe, type LogLine, type ServerProcess } from '../helpers/cli.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../helpers/database.js';
import { until } from '../helpers/eventually.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { DeliveryService } from '../../src/services/deliveries.js';
import { request } from '../helpers/submit.js';

const READY = (line: LogLine) => typeof line.json?.msg === 'string' && line.json.msg.startsWith('Formgate is ready');

/** Starts `formgate serve` on this database and returns it with its submit address. */
async function serve(env: NodeJS.ProcessEnv): Promise<{ server: ServerProcess; submitUrl: string }> {
  const server = spawnServe(env);
  const ready = await server.waitForLine(READY, 'the ready line', 30_000);
  return { server, submitUrl: String(ready.json!.submitUrl) };
}

async function submit(submitUrl: string, formId: string, n: number): Promise<string> {
  const body = new URLSearchParams({ name: `Visitor ${n}`, message: `Message number ${n}` }).toString();
  // each from an address of its own, as from real visitors
  const answer = await request(
    'POST',
    `${submitUrl}/${formId}`,
    body,
    { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    `127.0.11.${n + 1}`,
  );
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body.id;
}

/** Waits, with a deadline, until `count` distinct submissions have been mailed. */
async function mailedIds(sink: SmtpSink, count: number): Promise<string[]> {
  await sink.waitFor(count, 30_000);
  return sink.messages.map((m) => m.parsed.messageId ?? '');
}

describe('deliveries survive crashes and several instances', () => {
  let database: TestDatabase;
  let ctx: AppContext;
  let sink: SmtpSink;
  let env: NodeJS.ProcessEnv;
  let formId: string;
  let hook: WebhookReceiver;
  let hookFormId: string;
  const servers: ServerProcess[] = [];

  before(async () => {
    database = await createTestDatabase();
    sink = await startSmtpSink();
    hook = await startWebhookReceiver({ hang: true });
    ctx = await openContext(testConfig(database, { allowPrivateWebhooks: 'true' }));
    const { user, workspace } = await ctx.users.createUser(`crash-${process.pid}@example.com`);
    await ctx.workspaces.setPlan(workspace.id, 'BUNDLE_50000', { tellOwners: false });
    formId = (await ctx.forms.createForm(user.id, workspace.id, { name: 'Crash', notificationEmails: ['ops@example.com'] })).id;
    hookFormId = (await ctx.forms.createForm(user.id, workspace.id, { name: 'Hooked', webhookUrl: hook.url })).id;
    env = cliEnv(database, {
      FORMGATE_PORT: '0',
      FORMGATE_SUBMIT_PORT: '0',
      FORMGATE_SMTP_URL: sink.url,
      FORMGATE_RATE_LIMIT_SUBMIT: 'off',
      FORMGATE_ALLOW_PRIVATE_WEBHOOKS: 'true',
    });
  });
  after(async () => {
    for (const server of servers) server.kill();
    await Promise.all(servers.map((s) => s.waitForExit().catch(() => undefined)));
    await ctx?.close();
    await sink?.close();
    await hook?.close();
    await database?.drop();
  });

  it('delivers every job after the server is killed (SIGKILL) with jobs pending and started again', async () => {
    sink.messages.length = 0;
    sink.mode = 'transient';
    const first = await serve(env);
    servers.push(first.server);
    const ids: string[] = [];
    for (let n = 0; n < 10; n++) ids.push(await submit(first.submitUrl, formId, n));
    first.server.kill();
    await first.server.waitForExit();

    // time passes: the dead worker's leases and the retry delays run out
    await ctx.database.db
      .updateTable('jobs')
      .set({ leaseUntil: Date.now() - 1, runAt: Date.now() - 1 })
      .where('status', '=', 'pending')
      .execute();
    sink.mode = 'accept';
    const second = await serve(env);
    servers.push(second.server);
    const mailed = await mailedIds(sink, 10);
    assert.deepEqual([...new Set(mailed)].sort(), ids.map((id) => mailed.find((m) => m.startsWith(`<${id}.`))!).sort(), 'each submission mailed');
    // the worker marks a job done just after the server accepted the message
    let states: { status: string }[] = [];
    await until('every notification to be marked done', async () => {
      states = await ctx.database.db.selectFrom('jobs').select('status').where('kind', '=', 'notification').execute();
      return states.every((s) => s.status === 'done');
    });
    assert.ok(states.length === 10 && states.every((s) => s.status === 'done'), JSON.stringify(states));
    second.server.kill();
    await second.server.waitForExit();
  });

  it('shows the try a killed instance cut off as interrupted, and takes its job over once the 30 s lease has run out', async () => {
    const first = await serve(env);
    servers.push(first.server);
    const submissionId = await submit(first.submitUrl, hookFormId, 60);
    await until('the webhook is under way (the receiver holds it)', () => hook.requests.length === 1, 30_000);
    const jobOf = () => ctx.database.db.selectFrom('jobs').selectAll().where('submissionId', '=', submissionId).executeTakeFirstOrThrow();
    const deliveries = new DeliveryService(ctx.database);
    const triesOf = async () => (await deliveries.list({ formId: hookFormId, limit: 10 }))[0]!.tries;
    await until('the try is marked started', async () => (await jobOf()).tryStartedAt !== null, 30_000);
    first.server.kill();
    await first.server.waitForExit();

    const job = await jobOf();
    assert.ok(job.leaseUntil! - Date.now() <= 30_000, `the dead instance's lease runs out within 30 s (${job.leaseUntil! - Date.now()} ms left)`);
    assert.deepEqual(
      (await triesOf()).map((t) => t.outcome),
      ['in_progress'],
      'the log shows the try under way',
    );
    // time passes: the lease runs out (within 30 s; not waited for here)
    await ctx.database.db
      .updateTable('jobs')
      .set({ leaseUntil: Date.now() - 1 })
      .where('id', '=', job.id)
      .execute();
    assert.deepEqual(
      (await triesOf()).map((t) => t.outcome),
      ['interrupted'],
    );

    hook.mode = { status: 200 };
    const second = await serve(env);
    servers.push(second.server);
    await until('the job is done', async () => (await jobOf()).status === 'done', 30_000);
    assert.equal(hook.requests.length, 2, 'sent again: delivery is at least once');
    assert.equal(hook.requests[1]!.headers['webhook-id'], hook.requests[0]!.headers['webhook-id'], 'under the same webhook-id, which receivers deduplicate on');
    const tries = await triesOf();
    assert.deepEqual(
      tries.map((t) => t.outcome),
      ['interrupted', 'ok'],
    );
    assert.equal(tries[0]!.startedAt, new Date(job.tryStartedAt!).toISOString());
    second.server.kill();
    await second.server.waitForExit();
  });

  it('delivers each job once with two instances on one PostgreSQL database', {
    skip: TEST_DIALECT !== 'postgres' && 'PostgreSQL only (several instances need it)',
  }, async () => {
    sink.messages.length = 0;
    sink.mode = 'accept';
    const a = await serve(env);
    const b = await serve(env);
    servers.push(a.server, b.server);
    const ids: string[] = [];
    for (let n = 20; n < 50; n++) ids.push(await submit(n % 2 === 0 ? a.submitUrl : b.submitUrl, formId, n));
    const mailed = await mailedIds(sink, 30);
    assert.equal(mailed.length, 30);
    assert.equal(new Set(mailed).size, 30, 'no submission mailed twice');
    for (const id of ids)
      assert.ok(
        mailed.some((m) => m.startsWith(`<${id}.`)),
        `${id} was mailed`,
      );
  });
});
