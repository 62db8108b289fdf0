import assert from 'node:assert/strict';
import { randomBytes, randomInt } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { openContext, type AppContext } from '../../src/context.js';
import { testConfig } from '../helpers/app.js';
import { buildProgram, type BuiltProgram } from '../helpers/built-program.js';
import { cliEnv, spawnServe, type LogLine, type ServerProcess } from '../helpers/cli.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';
import { printFigures } from '../helpers/figures.js';
import { assertNothingLost, auditLoad, failedJobs, storedSubmissions, unexplainedCopies, waitForDrain } from '../helpers/load-audit.js';
import { connectTestRedis, TEST_REDIS_URL } from '../helpers/redis.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { request } from '../helpers/submit.js';
import { startSubmitLoad, type SubmitLoad } from '../helpers/submit-load.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

// Issue 18: two `formgate serve` on one PostgreSQL database and one Redis, one of them killed
// (SIGKILL) and restarted again and again under load sent to both.
const KILLS = 6;
const UPTIME_MS: [number, number] = [1_000, 3_000];
/** Per client IP, shared by both instances through Redis. */
const SUBMIT_LIMIT = 5;
const SLOTS_PER_LANE = 16;
const LOAD_RECIPIENT = 'ops@example.com';

const READY = (line: LogLine) => typeof line.json?.msg === 'string' && line.json.msg.startsWith('Formgate is ready');

interface Instance {
  server: ServerProcess;
  submitUrl: string;
  baseUrl: string;
}

describe(`two instances on one PostgreSQL database and one Redis, one killed repeatedly (${TEST_DIALECT})`, {
  skip: TEST_DIALECT !== 'postgres' && 'PostgreSQL only: several instances need a database server (SQLite is one process’s file)',
}, () => {
  let database: TestDatabase;
  let ctx: AppContext;
  let sink: SmtpSink;
  let hook: WebhookReceiver;
  let built: BuiltProgram;
  let load: SubmitLoad | undefined;
  let redis: Redis | null = null;
  let token: string;
  let loadFormId: string;
  let settingsFormId: string;
  const redisPrefix = `formgate-test-${process.pid}-${randomBytes(4).toString('hex')}:`;
  const servers: ServerProcess[] = [];

  before(async () => {
    database = await createTestDatabase();
    [sink, hook, built] = await Promise.all([startSmtpSink(), startWebhookReceiver({ status: 200 }), buildProgram()]);
    ctx = await openContext(testConfig(database, { allowPrivateWebhooks: 'true' }));
    const { user, workspace } = await ctx.users.createUser(`two-instances-${process.pid}@example.com`);
    await ctx.workspaces.setPlan(workspace.id, 'BUNDLE_50000', { tellOwners: false });
    ({ secret: token } = await ctx.tokens.createToken(user.id, { name: 'two-instances', scopes: ['forms:read', 'forms:write'] }));
    loadFormId = (await ctx.forms.createForm(user.id, workspace.id, { name: 'Load', notificationEmails: [LOAD_RECIPIENT], webhookUrl: hook.url })).id;
    settingsFormId = (await ctx.forms.createForm(user.id, workspace.id, { name: 'Settings', notificationEmails: ['before@example.com'] })).id;
  });
  after(async () => {
    load?.kill();
    for (const server of servers) server.kill();
    await Promise.all(servers.map((s) => s.waitForExit(5_000).catch(() => undefined)));
    if (redis) {
      const keys = await redis.keys(`${redisPrefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
    await ctx?.close();
    await sink?.close();
    await hook?.close();
    built?.remove();
    await database?.drop();
  });

  function envFor(): NodeJS.ProcessEnv {
    return cliEnv(database, {
      FORMGATE_PORT: '0',
      FORMGATE_SUBMIT_PORT: '0',
      FORMGATE_SMTP_URL: sink.url,
      FORMGATE_ALLOW_PRIVATE_WEBHOOKS: 'true',
      FORMGATE_REDIS_URL: TEST_REDIS_URL,
      FORMGATE_REDIS_PREFIX: redisPrefix,
      FORMGATE_RATE_LIMIT_SUBMIT: `${SUBMIT_LIMIT}/1m`,
      FORMGATE_RATE_LIMIT_API: 'off',
      FORMGATE_DELIVERY_LEASE: '5s',
    });
  }

  async function startInstance(): Promise<Instance> {
    const server = spawnServe(envFor(), built.program);
    servers.push(server);
    const ready = await server.waitForLine(READY, 'the ready line', 30_000);
    return { server, submitUrl: String(ready.json!.submitUrl), baseUrl: String(ready.json!.baseUrl) };
  }

  /** A JSON submission from `visitor` (a loopback source address), with extra headers such as Origin. */
  function submit(instance: Instance, formId: string, fields: Record<string, string>, visitor: string, headers: Record<string, string> = {}) {
    return request(
      'POST',
      `${instance.submitUrl}/${formId}`,
      JSON.stringify(fields),
      { 'content-type': 'application/json', accept: 'application/json', ...headers },
      visitor,
    );
  }

  async function patchForm(instance: Instance, formId: string, body: Record<string, unknown>): Promise<void> {
    const answer = await request('PATCH', `${instance.baseUrl}/forms/${formId}`, JSON.stringify(body), {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json',
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
  }

  it('delivers everything once or as a counted duplicate, shares rate limits, and sees a form changed on the other instance at once', {
    timeout: 180_000,
  }, async (t) => {
    redis = await connectTestRedis(t);
    if (!redis) return;
    const runId = `two-${randomBytes(3).toString('hex')}`;
    load = startSubmitLoad({ runId, formIds: [loadFormId], concurrency: 4, pauseMs: 25, maxRequests: 20_000, subnet: 71 });
    const a = await startInstance();
    let b = await startInstance();
    load.setTargets([a.submitUrl, b.submitUrl]);
    const started = Date.now();
    for (let kill = 0; kill < KILLS; kill++) {
      // the fault schedule, not a wait for a state: B serves a random while, then dies
      await sleep(randomInt(UPTIME_MS[0], UPTIME_MS[1]));
      b.server.kill();
      await b.server.waitForExit();
      b = await startInstance();
      load.setTargets([a.submitUrl, b.submitUrl]);
    }
    const loadSeconds = (Date.now() - started) / 1000;

    // Rate limit: one visitor's submissions, alternately to A and B, are limited at SUBMIT_LIMIT in all.
    const visitor = `127.72.${randomInt(0, 250)}.${randomInt(1, 250)}`;
    const statuses: number[] = [];
    for (let n = 0; n < 3 * SUBMIT_LIMIT; n++) {
      const answer = await submit(n % 2 === 0 ? a : b, settingsFormId, { message: `rate ${runId} ${n}` }, visitor);
      statuses.push(answer.status);
      if (answer.status !== 200) assert.equal(answer.body.code, 'rate_limited', JSON.stringify(answer.body));
    }
    const accepted = statuses.filter((status) => status === 200).length;
    assert.equal(accepted, SUBMIT_LIMIT, `one visitor over both instances: ${statuses.join(' ')}`);
    assert.deepEqual(statuses.slice(0, SUBMIT_LIMIT), Array(SUBMIT_LIMIT).fill(200), 'the first ones pass, then 429');

    // A form changed through the API on A applies to the very next submission on B.
    let changeVisitor = 0;
    const freshVisitor = () => `127.73.${Math.floor(changeVisitor / 250)}.${(changeVisitor++ % 250) + 1}`;
    await patchForm(a, settingsFormId, { allowedOrigins: ['https://allowed.example'] });
    const elsewhere = await submit(b, settingsFormId, { message: 'from another site' }, freshVisitor(), { origin: 'https://elsewhere.example' });
    assert.equal(elsewhere.status, 403, JSON.stringify(elsewhere.body));
    assert.equal(elsewhere.body.code, 'origin_not_allowed');
    const allowed = await submit(b, settingsFormId, { message: 'from the listed site' }, freshVisitor(), { origin: 'https://allowed.example' });
    assert.equal(allowed.status, 200, JSON.stringify(allowed.body));
    await patchForm(b, settingsFormId, { allowedOrigins: [], notificationEmails: ['after@example.com'] });
    const told = await submit(a, settingsFormId, { message: 'after the change' }, freshVisitor());
    assert.equal(told.status, 200, JSON.stringify(told.body));
    const toldMail = await eventually(
      async () => sink.messages.find((m) => m.parsed.messageId?.startsWith(`<${told.body.id}.`)),
      'the notification of the submission made after the change',
      30_000,
    );
    assert.deepEqual(toldMail.envelopeTo, ['after@example.com'], 'sent to the recipient set on the other instance');

    const report = await load.stop();
    const drainStarted = Date.now();
    await waitForDrain(ctx.database.db, 60_000);
    const drainSeconds = (Date.now() - drainStarted) / 1000;

    const loadMails = sink.messages.filter((m) => m.envelopeTo.includes(LOAD_RECIPIENT));
    const audit = auditLoad({
      answers: report.answers,
      stored: await storedSubmissions(ctx.database.db, [loadFormId]),
      delivers: () => ({ email: true, webhook: true }),
      mails: loadMails,
      hooks: hook.requests,
      markerPattern: new RegExp(`${runId}-\\d+`),
    });
    const unexplained = await unexplainedCopies(ctx.database.db, audit.extraCopies);
    const failed = await failedJobs(ctx.database.db, [loadFormId]);
    const byInstance = (url: string) => report.answers.filter((answer) => answer.target === url && answer.outcome === 'acknowledged').length;
    printFigures('two instances, one killed repeatedly (PostgreSQL + Redis)', {
      requestsSent: report.sent + statuses.length + 3,
      faultsInjected: KILLS,
      submissionsAcknowledged: audit.acknowledged,
      submissionsFound: audit.found,
      deliveriesExpected: audit.deliveriesExpected,
      delivered: audit.delivered,
      duplicated: audit.emailDuplicates + audit.webhookDuplicates,
      more: {
        refused: audit.refused,
        'connection failed (no answer)': audit.connectionFailed,
        'stored without an answer': audit.storedUnanswered,
        'acknowledged by A (never killed)': byInstance(a.submitUrl),
        'duplicate emails (same Message-ID)': audit.emailDuplicates,
        'duplicate webhooks (same webhook-id)': audit.webhookDuplicates,
        'failed deliveries': failed.length,
        'one visitor over both instances': `${accepted} accepted of ${statuses.length} (limit ${SUBMIT_LIMIT}/1m)`,
        'load, drain': `${loadSeconds.toFixed(1)} s, ${drainSeconds.toFixed(1)} s`,
      },
    });

    assertNothingLost(audit, { minAcknowledged: KILLS * 20, failed, unexplained, duplicateBound: KILLS * SLOTS_PER_LANE });
  });
});
