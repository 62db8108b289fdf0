import assert from 'node:assert/strict';
import { randomBytes, randomInt } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { openContext, type AppContext } from '../../src/context.js';
import { testConfig } from '../helpers/app.js';
import { buildProgram, type BuiltProgram } from '../helpers/built-program.js';
import { cliEnv, MANY_VISITORS_FROM_ONE_ADDRESS, spawnServe, type LogLine, type ServerProcess } from '../helpers/cli.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../helpers/database.js';
import { until } from '../helpers/eventually.js';
import { printFigures } from '../helpers/figures.js';
import { assertNothingLost, auditLoad, failedJobs, storedSubmissions, unexplainedCopies, waitForDrain } from '../helpers/load-audit.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { startSubmitLoad, type SubmitLoad } from '../helpers/submit-load.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

// Issue 18: `formgate serve` killed (SIGKILL) at random moments, 20 times, while a separate process
// submits steadily; every acknowledged submission must be stored once and delivered.
const KILLS = 20;
/** How long each instance serves before it is killed: a random time in this range (ms). */
const UPTIME_MS: [number, number] = [300, 1_800];
/** When an instance killed while starting is killed, after it was spawned (ms): its ready line comes at about 1 s. */
const STARTING_KILL_MS: [number, number] = [100, 1_000];
/** Short, so a killed instance's jobs are taken over within the run (the 30 s default: test/jobs/crash.test.ts). */
const LEASE = '5s';
const LEASE_MS = 5_000;
/** Jobs in flight at once in each lane of one instance (src/jobs/worker.ts): what one kill can cut off. */
const SLOTS_PER_LANE = 16;

const READY = (line: LogLine) => typeof line.json?.msg === 'string' && line.json.msg.startsWith('Formgate is ready');

describe(`crash under load: formgate serve killed ${KILLS} times while visitors submit (${TEST_DIALECT})`, () => {
  let database: TestDatabase;
  let ctx: AppContext;
  let sink: SmtpSink;
  let hook: WebhookReceiver;
  let built: BuiltProgram;
  let load: SubmitLoad | undefined;
  let env: NodeJS.ProcessEnv;
  let formId: string;
  const servers: ServerProcess[] = [];

  before(async () => {
    database = await createTestDatabase();
    [sink, hook, built] = await Promise.all([startSmtpSink(), startWebhookReceiver({ status: 200 }), buildProgram()]);
    ctx = await openContext(testConfig(database, { allowPrivateWebhooks: 'true' }));
    const { user, workspace } = await ctx.users.createUser(`crash-load-${process.pid}@example.com`);
    await ctx.workspaces.setPlan(workspace.id, 'BUNDLE_50000', { tellOwners: false });
    const form = await ctx.forms.createForm(user.id, workspace.id, { name: 'Under load', notificationEmails: ['ops@example.com'], webhookUrl: hook.url });
    formId = form.id;
    env = cliEnv(database, {
      FORMGATE_PORT: '0',
      FORMGATE_SUBMIT_PORT: '0',
      FORMGATE_SMTP_URL: sink.url,
      ...MANY_VISITORS_FROM_ONE_ADDRESS,
      FORMGATE_ALLOW_PRIVATE_WEBHOOKS: 'true',
      FORMGATE_DELIVERY_LEASE: LEASE,
    });
  });
  after(async () => {
    load?.kill();
    for (const server of servers) server.kill();
    await Promise.all(servers.map((s) => s.waitForExit(5_000).catch(() => undefined)));
    await ctx?.close();
    await sink?.close();
    await hook?.close();
    built?.remove();
    await database?.drop();
  });

  /** Starts an instance and points the load at its submit surface. */
  async function startInstance(): Promise<ServerProcess> {
    const server = spawnServe(env, built.program);
    servers.push(server);
    const ready = await server.waitForLine(READY, 'the ready line', 30_000);
    load?.setTargets([String(ready.json!.submitUrl)]);
    return server;
  }

  async function kill(server: ServerProcess): Promise<number> {
    server.kill();
    await server.waitForExit();
    return Date.now();
  }

  /** The jobs whose try is under way: claimed, started and leased (by a live instance, or a dead one's until it runs out). */
  const jobsUnderWay = (now: number) =>
    ctx.database.db
      .selectFrom('jobs')
      .select(['id', 'leaseUntil'])
      .where('status', '=', 'pending')
      .where('tryStartedAt', 'is not', null)
      .where('leaseUntil', '>', now)
      .execute();

  it('stores every acknowledged submission once and delivers all of it, at least once under one key', { timeout: 240_000 }, async () => {
    const runId = `crash-${TEST_DIALECT}-${randomBytes(3).toString('hex')}`;
    load = startSubmitLoad({ runId, formIds: [formId], concurrency: 4, pauseMs: 25, maxRequests: 20_000, subnet: 61 });
    const started = Date.now();
    let startingKills = 0;
    let server = await startInstance();
    for (let kills = 1; kills < KILLS; kills++) {
      // the fault schedule, not a wait for a state: the instance serves a random while
      await sleep(randomInt(UPTIME_MS[0], UPTIME_MS[1]));
      await kill(server);
      if (kills % 5 === 0) {
        // now and then killed while starting (opening the database, migrating, listening), too
        const starting = spawnServe(env, built.program);
        servers.push(starting);
        await sleep(randomInt(STARTING_KILL_MS[0], STARTING_KILL_MS[1]));
        await kill(starting);
        startingKills += 1;
      }
      server = await startInstance();
    }
    // The last kill is made with deliveries under way, so their takeover can be timed.
    await until('a delivery is under way', async () => (await jobsUnderWay(Date.now())).length > 0);
    const lastKillAt = await kill(server);
    const cutOff = await jobsUnderWay(lastKillAt);
    const loadSeconds = (Date.now() - started) / 1000;
    server = await startInstance();
    const report = await load.stop();

    const drainStarted = Date.now();
    await waitForDrain(ctx.database.db, 60_000);
    const drainSeconds = (Date.now() - drainStarted) / 1000;

    // the takeover: when each cut-off job's next try started, after its dead lease ran out
    const takeovers: number[] = [];
    for (const job of cutOff) {
      const next = await ctx.database.db
        .selectFrom('jobAttempts')
        .select((eb) => eb.fn.min('startedAt').as('startedAt'))
        .where('jobId', '=', job.id)
        .where('startedAt', '>', lastKillAt)
        .executeTakeFirst();
      const startedAt = Number(next?.startedAt);
      assert.ok(startedAt >= job.leaseUntil!, `job ${job.id} was taken over at ${startedAt}, before its lease ran out at ${job.leaseUntil}`);
      takeovers.push(startedAt - lastKillAt);
    }
    const takeoverMs = Math.max(...takeovers);
    assert.ok(cutOff.length > 0 && takeoverMs <= LEASE_MS + 10_000, `taken over within the lease and a restart: ${takeoverMs} ms`);

    const audit = auditLoad({
      answers: report.answers,
      stored: await storedSubmissions(ctx.database.db, [formId]),
      delivers: () => ({ email: true, webhook: true }),
      mails: sink.messages,
      hooks: hook.requests,
      markerPattern: new RegExp(`${runId}-\\d+`),
    });
    // each extra copy is explained: its job has a try that a kill cut off (recorded as interrupted)
    const unexplained = await unexplainedCopies(ctx.database.db, audit.extraCopies);
    const failed = await failedJobs(ctx.database.db, [formId]);
    const duplicated = audit.emailDuplicates + audit.webhookDuplicates;
    printFigures('crash under load (SIGKILL of formgate serve)', {
      requestsSent: report.sent,
      faultsInjected: KILLS + startingKills,
      submissionsAcknowledged: audit.acknowledged,
      submissionsFound: audit.found,
      deliveriesExpected: audit.deliveriesExpected,
      delivered: audit.delivered,
      duplicated,
      more: {
        'kills while serving, while starting': `${KILLS}, ${startingKills}`,
        refused: audit.refused,
        'connection failed (no answer)': audit.connectionFailed,
        'stored without an answer': audit.storedUnanswered,
        'duplicate emails (same Message-ID)': audit.emailDuplicates,
        'duplicate webhooks (same webhook-id)': audit.webhookDuplicates,
        'failed deliveries': failed.length,
        'deliveries under dead leases at the last kill': cutOff.length,
        'takeover after the last kill': `${(takeoverMs / 1000).toFixed(1)} s (lease ${LEASE})`,
        'load, drain': `${loadSeconds.toFixed(1)} s, ${drainSeconds.toFixed(1)} s`,
      },
    });

    // A copy is sent twice only when a kill cuts off its try after the receiver had it and before
    // it was recorded: at most the jobs in flight at each kill, 16 a lane.
    assertNothingLost(audit, { minAcknowledged: KILLS * 10, failed, unexplained, duplicateBound: (KILLS + startingKills) * SLOTS_PER_LANE });
  });
});
