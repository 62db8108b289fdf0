import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildConfig, ConfigError } from '../src/config/config.js';
import { openContext, type AppContext } from '../src/context.js';
import { DELIVERIES_PAUSED_KEY } from '../src/db/deliveries-setting.js';
import { DeliverySwitch, SWITCH_REFRESH_MS } from '../src/jobs/delivery-switch.js';
import { startApp, type TestApp } from './helpers/app.js';
import { cliEnv, killRunningCli, runCli } from './helpers/cli.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from './helpers/database.js';
import { eventually, until } from './helpers/eventually.js';
import { createAccount, createForm, type Account } from './helpers/fixtures.js';
import { postJson } from './helpers/submit.js';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver.js';

// The installation-wide switch of issue 27: while paused, submissions are taken and their
// deliveries wait; every instance sees a change within SWITCH_REFRESH_MS; /healthz, /metrics and
// the log say so; resumed, each waiting delivery goes out once.

/** Longer than a few worker polls (500 ms) and a switch reading: what a paused worker would have sent by then, it would have. */
const QUIET_MS = 1_500;
const quiet = () => new Promise((resolve) => setTimeout(resolve, QUIET_MS));

describe(`deliveries paused (${TEST_DIALECT})`, () => {
  let receiver: WebhookReceiver;
  let app: TestApp;
  let account: Account;
  let formId: string;

  before(async () => {
    receiver = await startWebhookReceiver();
    app = await startApp({ allowPrivateWebhooks: 'true', metrics: 'on' }, { delivery: true });
    account = await createAccount(app);
    ({ id: formId } = await createForm(app, account, { webhookUrl: receiver.url }));
  });
  after(async () => {
    await app?.close();
    await receiver?.close();
  });

  async function pendingJobs(): Promise<number> {
    const row = await app.ctx.database.db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', '=', 'pending')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  it('takes submissions while paused, sends nothing, says so on /healthz and /metrics, and sends each once when resumed', async () => {
    const paused = await app.ctx.deliveryPause.pause('a test');
    assert.equal(paused.paused, true);
    assert.equal(paused.source, 'database');
    assert.equal(paused.pause?.by, 'a test');

    const answers = await Promise.all([1, 2, 3].map((n) => postJson(app, formId, { n: String(n) })));
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 200],
    );
    await quiet();
    assert.equal(receiver.requests.length, 0, 'nothing is sent while paused');
    assert.equal(await pendingJobs(), 3, 'the deliveries wait');
    assert.equal((await app.ctx.deliveryPause.status()).waiting, 3);

    const health = await app.fetch('GET', `${app.publicUrl}/healthz`);
    assert.equal(health.status, 200, 'paused is never a reason to take an instance out');
    assert.equal(health.body.status, 'degraded');
    assert.equal(health.body.checks.deliveries.status, 'degraded');
    assert.equal(health.body.checks.deliveries.reason, 'paused');
    assert.equal(health.body.checks.deliveries.pausedBy, 'a test');
    assert.match((await app.fetch('GET', `${app.publicUrl}/metrics`)).body, /^formgate_deliveries_paused 1$/m);

    const resumed = await app.ctx.deliveryPause.resume();
    assert.equal(resumed.wasPaused, true);
    assert.equal(resumed.paused, false);
    await until('the three webhooks', () => receiver.requests.length >= 3);
    await until('the jobs recorded as done', async () => (await pendingJobs()) === 0);
    await quiet();
    const ids = receiver.requests.map((r) => String(r.headers['webhook-id'])).sort();
    assert.deepEqual(ids, answers.map((a) => a.body.id as string).sort(), 'each once, under its submission id');
    assert.match((await app.fetch('GET', `${app.publicUrl}/metrics`)).body, /^formgate_deliveries_paused 0$/m);
    const healthy = await app.fetch('GET', `${app.publicUrl}/healthz`);
    assert.equal(healthy.body.checks.deliveries.status, 'ok');
  });

  it('is seen by another instance within the refresh time, through the database', async () => {
    const other = await openContext(
      buildConfig({
        databaseUrl: app.ctx.config.database.dialect === 'sqlite' ? `sqlite:${app.ctx.config.database.file}` : app.ctx.config.database.url,
        dataDir: app.ctx.config.dataDir,
      }),
    );
    try {
      assert.equal(await app.ctx.deliverySwitch.paused(), false);
      // this instance's switch on a clock of the test's: its reading holds for the refresh time, and not a millisecond longer
      let clock = 1_000_000;
      const seen = new DeliverySwitch(app.ctx.database, { environmentPaused: false, now: () => clock });
      assert.equal(await seen.paused(), false);
      await other.deliveryPause.pause('the other instance');
      clock += SWITCH_REFRESH_MS - 1;
      assert.equal(await seen.paused(), false, 'the reading is kept until the refresh time is up');
      clock += 1;
      assert.equal(await seen.paused(), true, 'read again once the refresh time is up');
      // and the running instance's own switch sees it too
      await eventually(() => app.ctx.deliverySwitch.paused(), 'this instance to see the pause', SWITCH_REFRESH_MS + 10_000);
      await other.deliveryPause.resume();
      await eventually(async () => !(await app.ctx.deliverySwitch.paused()), 'this instance to see the resume', SWITCH_REFRESH_MS + 10_000);
    } finally {
      await other.close();
    }
  });

  it('reads the switch from a cache: a read within the refresh time is no query', async () => {
    let clock = 1_000_000;
    let queries = 0;
    // the database as the switch sees it, counting each time it is asked (the app's own switch and worker are not counted)
    const counted = {
      get db() {
        queries++;
        return app.ctx.database.db;
      },
    } as unknown as typeof app.ctx.database;
    const cached = new DeliverySwitch(counted, { environmentPaused: false, now: () => clock });
    await cached.read();
    assert.equal(queries, 1, 'the first read asks the database');
    for (let i = 0; i < 10_000; i++) {
      clock += 0.01;
      await cached.read();
    }
    assert.equal(queries, 1, '10,000 reads within the refresh time: not one query more');
    clock += SWITCH_REFRESH_MS;
    await cached.read();
    assert.equal(queries, 2, 'asked again once the refresh time is up');
  });
});

describe(`FORMGATE_DELIVERIES (${TEST_DIALECT})`, () => {
  it('accepts on and paused only, naming the variable', () => {
    assert.equal(buildConfig({}).deliveriesPaused, false);
    assert.equal(buildConfig({ deliveries: 'on' }).deliveriesPaused, false);
    assert.equal(buildConfig({ deliveries: 'Paused' }).deliveriesPaused, true);
    assert.throws(
      () => buildConfig({ deliveries: 'off' }),
      (error: unknown) => error instanceof ConfigError && /FORMGATE_DELIVERIES must be one of on, paused/.test(error.message),
    );
  });

  it('pauses this instance whatever the database says: a resume does not lift it', async () => {
    const receiver = await startWebhookReceiver();
    const app = await startApp({ allowPrivateWebhooks: 'true', deliveries: 'paused' }, { delivery: true });
    try {
      const account = await createAccount(app);
      const form = await createForm(app, account, { webhookUrl: receiver.url });
      const resumed = await app.ctx.deliveryPause.resume();
      assert.equal(resumed.wasPaused, false);
      assert.equal(resumed.paused, true);
      assert.equal(resumed.source, 'environment');
      assert.equal((await postJson(app, form.id, { n: '1' })).status, 200);
      await quiet();
      assert.equal(receiver.requests.length, 0);
      const health = await app.fetch('GET', `${app.publicUrl}/healthz`);
      assert.equal(health.body.checks.deliveries.reason, 'paused');
      assert.equal(health.body.checks.deliveries.pausedBy, 'FORMGATE_DELIVERIES');
    } finally {
      await app.close();
      await receiver.close();
    }
  });
});

describe(`formgate deliveries pause and resume (${TEST_DIALECT})`, () => {
  let database: TestDatabase;
  let ctx: AppContext;

  before(async () => {
    database = await createTestDatabase();
    ctx = await openContext(buildConfig({ databaseUrl: database.url, dataDir: database.dataDir }));
  });
  after(async () => {
    killRunningCli();
    await ctx?.close();
    await database?.drop();
  });

  it('pauses and resumes through the database, printing JSON with --json and sentences without', async () => {
    const env = cliEnv(database);
    const paused = await runCli(env, ['deliveries', 'pause', '--json']);
    assert.equal(paused.code, 0, paused.stderr);
    const json = JSON.parse(paused.stdout);
    assert.equal(json.paused, true);
    assert.equal(json.environment, 'on');
    assert.match(json.pausedBy, /^formgate deliveries pause \(.+@.+\)$/);
    assert.ok(!Number.isNaN(Date.parse(json.pausedAt)));
    assert.equal(json.waiting, 0);
    const row = await ctx.database.db.selectFrom('settings').select('value').where('key', '=', DELIVERIES_PAUSED_KEY).executeTakeFirst();
    assert.ok(row, 'the settings row every instance reads');

    const again = await runCli(env, ['deliveries', 'pause']);
    assert.equal(again.code, 0);
    assert.match(again.stdout, /^Deliveries are paused on .+ \(since .+, by formgate deliveries pause/);
    assert.ok(again.stdout.includes(json.pausedAt), 'a second pause keeps the first one’s time');

    const resumed = await runCli(env, ['deliveries', 'resume', '--json']);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.deepEqual(
      { ...JSON.parse(resumed.stdout), database: undefined },
      {
        database: undefined,
        paused: false,
        environment: 'on',
        pausedAt: null,
        pausedBy: null,
        waiting: 0,
        waitingCapped: false,
        resumed: true,
      },
    );
    const notPaused = await runCli(env, ['deliveries', 'resume']);
    assert.match(notPaused.stdout, /^Deliveries were not paused on /);
  });
});
