import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildConfig } from '../src/config/config.js';
import { openContext } from '../src/context.js';
import { Database, fromJson } from '../src/db/database.js';
import type { Answer } from './helpers/app.js';
import { buildProgram, type BuiltProgram } from './helpers/built-program.js';
import { cliEnv, MANY_VISITORS_FROM_ONE_ADDRESS, killRunningCli, runCli, spawnServe, type LogLine, type ServerProcess } from './helpers/cli.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from './helpers/database.js';
import { eventually, until } from './helpers/eventually.js';
import { SteadyStream } from './helpers/steady-stream.js';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver.js';

// Issue 27: a backup taken while `formgate serve` takes a steady stream of submissions holds every
// submission acknowledged before it started, once; its restored copy starts with deliveries paused
// (nothing reaches the webhook receiver), and once resumed sends what was pending, each once, under
// the webhook-id the original used.

const READY = (line: LogLine) => typeof line.json?.msg === 'string' && line.json.msg.startsWith('Formgate is ready');
/** How long the restored, paused copy is watched for a delivery it must not make: several polls and switch reads. */
const QUIET_MS = 3_000;

describe(`formgate backup and restore under load (${TEST_DIALECT})`, () => {
  let program: BuiltProgram;
  let original: TestDatabase;
  let restored: TestDatabase;
  let receiver: WebhookReceiver;
  let formId: string;
  const servers: ServerProcess[] = [];

  const serveEnv = (database: TestDatabase) =>
    cliEnv(database, {
      FORMGATE_HOST: '127.0.0.1',
      FORMGATE_PORT: '0',
      FORMGATE_SUBMIT_PORT: '0',
      ...MANY_VISITORS_FROM_ONE_ADDRESS,
      FORMGATE_ALLOW_PRIVATE_WEBHOOKS: '1',
      FORMGATE_METRICS: 'on',
    });

  async function startServer(database: TestDatabase): Promise<{ server: ServerProcess; submitUrl: string; dashboardUrl: string }> {
    const server = spawnServe(serveEnv(database), program.program);
    servers.push(server);
    const ready = await server.waitForLine(READY, 'the ready line', 30_000);
    return { server, submitUrl: ready.json!.submitUrl, dashboardUrl: ready.json!.dashboardUrl };
  }

  async function stop(server: ServerProcess): Promise<void> {
    server.child.kill('SIGTERM');
    assert.deepEqual(await server.waitForExit(), { code: 0, signal: null }, server.stderr());
  }

  /** The submissions stored under `formId` in `database`, by their `ref` field. */
  async function storedByRef(database: TestDatabase): Promise<Map<string, string[]>> {
    const db = Database.open(buildConfig({ databaseUrl: database.url, dataDir: database.dataDir }).database, { mustExist: true });
    try {
      const rows = await db.db.selectFrom('submissions').select(['id', 'data']).where('formId', '=', formId).execute();
      const byRef = new Map<string, string[]>();
      for (const row of rows) {
        const ref = fromJson<{ ref?: string }>(row.data).ref ?? '';
        byRef.set(ref, [...(byRef.get(ref) ?? []), row.id]);
      }
      return byRef;
    } finally {
      await db.destroy();
    }
  }

  /** Every webhook the receiver got, as (ref, webhook-id). */
  function webhooks(from = 0): { ref: string; id: string }[] {
    return receiver.requests.slice(from).map((r) => ({ ref: JSON.parse(r.rawBody).ref as string, id: String(r.headers['webhook-id']) }));
  }

  before(async () => {
    [program, original, restored, receiver] = await Promise.all([buildProgram(), createTestDatabase(), createTestDatabase(), startWebhookReceiver()]);
    const ctx = await openContext(buildConfig({ databaseUrl: original.url, dataDir: original.dataDir, allowPrivateWebhooks: '1' }));
    try {
      const { user, workspace } = await ctx.users.createUser(`backup-${process.pid}@example.com`);
      await ctx.workspaces.setPlan(workspace.id, 'BUNDLE_50000', { tellOwners: false });
      ({ id: formId } = await ctx.forms.createForm(user.id, workspace.id, { name: 'Backed up', webhookUrl: receiver.url }));
    } finally {
      await ctx.close();
    }
  });
  after(async () => {
    killRunningCli();
    for (const server of servers) server.kill();
    await Promise.all(servers.map((s) => s.waitForExit(5_000).catch(() => undefined)));
    await receiver?.close();
    await original?.drop();
    await restored?.drop();
    program?.remove();
  });

  it('restores every submission acknowledged before the backup, starts paused, and sends what was pending once with the same webhook-id', async (t) => {
    const { server, submitUrl } = await startServer(original);
    const refs = new Map<string, string>();
    const refOf = (id: string) => refs.get(id)!;
    const send = async (n: number): Promise<Answer> => {
      const response = await fetch(`${submitUrl}/${formId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ ref: `r${n}`, message: `submission ${n}` }),
      });
      const body = await response.json();
      if (typeof body?.id === 'string') refs.set(body.id, `r${n}`);
      return { status: response.status, headers: response.headers, body };
    };
    const stream = new SteadyStream(send, { everyMs: 10, max: 3_000 });
    stream.start();
    await until('a first hundred submissions acknowledged', () => stream.acknowledged().length >= 100, 20_000);
    // deliveries held for a moment, so that the backup holds pending ones (a paused original still takes submissions)
    const env = cliEnv(original);
    assert.equal((await runCli(env, ['deliveries', 'pause', '--json'], program.program)).code, 0);
    await until('submissions acknowledged while paused', () => stream.acknowledged().length >= 200, 20_000);

    const file = path.join(original.dataDir, 'under-load.backup');
    const acknowledgedBefore = stream.results.flatMap((r) => (r.id ? [{ ref: refOf(r.id), id: r.id }] : []));
    const backup = await runCli(env, ['backup', '--to', file, '--json'], program.program);
    const duringBackup = stream.acknowledged().length - acknowledgedBefore.length;
    assert.equal(backup.code, 0, backup.stderr + backup.stdout);
    const saved = JSON.parse(backup.stdout);
    assert.equal(saved.file, file);
    assert.equal(saved.bytes, fs.statSync(file).size);
    assert.ok(saved.counts.submissions >= acknowledgedBefore.length, JSON.stringify(saved.counts));
    assert.ok(saved.counts.pendingDeliveries > 0, 'deliveries were paused: the backup holds pending ones');
    assert.match(saved.restore, /formgate restore /);
    assert.ok(duringBackup > 0, 'submissions kept being acknowledged while the backup ran');

    // the original resumes and delivers everything it took; then it stops
    await stream.stop();
    stream.assertAnsweredCleanly();
    assert.equal((await runCli(env, ['deliveries', 'resume'], program.program)).code, 0);
    const storedRefs = (await storedByRef(original)).size;
    await until('the original to deliver every submission', () => new Set(webhooks().map((w) => w.ref)).size === storedRefs, 30_000);
    await until('the original to record every delivery', async () => (await pendingKeys(original)).length === 0);
    await stop(server);
    const deliveredByOriginal = receiver.requests.length;

    // restore into an empty database of the same dialect
    const restore = await runCli(cliEnv(restored), ['restore', file, '--json'], program.program);
    assert.equal(restore.code, 0, restore.stderr + restore.stdout);
    const restoredSummary = JSON.parse(restore.stdout);
    assert.deepEqual(restoredSummary.counts, saved.counts, 'the restored database holds what the backup said it saved');
    assert.equal(restoredSummary.deliveriesPaused, true);

    // each acknowledged submission once, under the id it was answered with (its ref is unique to its request)
    const kept = await storedByRef(restored);
    const missing = acknowledgedBefore.filter((r) => !kept.has(r.ref));
    assert.deepEqual(missing, [], `${missing.length} of ${acknowledgedBefore.length} submissions acknowledged before the backup are missing from it`);
    for (const { ref, id } of acknowledgedBefore) assert.deepEqual(kept.get(ref), [id], `${ref} in the restored copy`);

    // the restored copy starts paused: nothing leaves for a while, and it says so
    const pendingAtRestore = await pendingKeys(restored, 'webhook');
    assert.ok(pendingAtRestore.length > 0);
    const copy = await startServer(restored);
    await copy.server.waitForLine((l) => l.json?.deliveries === 'paused', 'the paused line at start');
    const health = await (await fetch(`${copy.dashboardUrl}/healthz`)).json();
    assert.equal(health.checks.deliveries.status, 'degraded');
    assert.equal(health.checks.deliveries.reason, 'paused');
    assert.match(await (await fetch(`${copy.dashboardUrl}/metrics`)).text(), /^formgate_deliveries_paused 1$/m);
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    assert.equal(receiver.requests.length, deliveredByOriginal, 'the paused copy sent nothing');

    // resumed: each pending delivery is sent once, under the key the original used
    assert.equal((await runCli(cliEnv(restored), ['deliveries', 'resume'], program.program)).code, 0);
    await copy.server.waitForLine((l) => l.json?.deliveries === 'on', 'the resumed line');
    await until('every pending delivery to be sent', async () => (await pendingKeys(restored)).length === 0, 30_000);
    const resent = webhooks(deliveredByOriginal);
    t.diagnostic(
      `acknowledged before the backup: ${acknowledgedBefore.length}, during it: ${duringBackup}; in the backup: ${JSON.stringify(saved.counts)}; webhooks resent by the restored copy: ${resent.length}`,
    );
    assert.deepEqual(resent.map((w) => w.id).sort(), [...pendingAtRestore].sort(), 'each pending delivery sent once, none other');
    await eventually(async () => (await fetch(`${copy.dashboardUrl}/healthz`)).json().then((h) => h.checks.deliveries.status === 'ok'), 'healthz ok again');
    await stop(copy.server);

    const keysByRef = new Map<string, Set<string>>();
    for (const { ref, id } of webhooks()) keysByRef.set(ref, (keysByRef.get(ref) ?? new Set()).add(id));
    const twoKeys = [...keysByRef].filter(([, keys]) => keys.size > 1);
    assert.deepEqual(twoKeys, [], 'no submission was delivered under two webhook-ids');
  });
});

/** The idempotency keys (webhook-id) of the deliveries still pending in `database`. */
async function pendingKeys(database: TestDatabase, lane?: string): Promise<string[]> {
  const db = Database.open(buildConfig({ databaseUrl: database.url, dataDir: database.dataDir }).database, { mustExist: true });
  try {
    let query = db.db.selectFrom('jobs').select('idempotencyKey').where('status', '=', 'pending');
    if (lane) query = query.where('lane', '=', lane);
    const rows = await query.execute();
    return rows.map((r) => r.idempotencyKey);
  } finally {
    await db.destroy();
  }
}
