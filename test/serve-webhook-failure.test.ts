import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildConfig } from '../src/config/config.js';
import { openContext, type AppContext } from '../src/context.js';
import { enqueueJob } from '../src/jobs/outbox.js';
import { cliEnv, FROM_SOURCE, spawnServe, type LogLine, type ServerProcess } from './helpers/cli.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from './helpers/database.js';

// `formgate serve` must outlive a webhook whose connection fails at once: an https webhook whose
// host has no route used to end the process with an unhandled 'error' event, and since the job
// stayed claimed, every restart crashed again when its lease ended.

// The errors of a connect() that fails before any packet leaves: the kernel has no route.
const AT_ONCE = /ENETUNREACH|EHOSTUNREACH|EINVAL|EACCES|EADDRNOTAVAIL/;
const READY = (line: LogLine) => typeof line.json?.msg === 'string' && line.json.msg.startsWith('Formgate is ready');
/** The worker's warning for a failed try of the given job. */
const failedTry = (jobId: string, attempt: number) => (line: LogLine) => line.json?.level === 40 && line.json.jobId === jobId && line.json.attempt === attempt;

// NOTE: a mount namespace gives the server its own /etc/hosts (so a name resolves to the address we
// choose, through the real resolver), a network namespace takes every route away; both need root.
const namespaces = spawnSync('setpriv', ['--pdeathsig', 'SIGKILL', 'unshare', '--mount', '--net', 'true']).status === 0;
const NO_NAMESPACES = 'needs `unshare --mount --net` and `setpriv` (util-linux, as root): no namespace can be made here';

describe('formgate serve and webhooks that cannot connect', { skip: !namespaces && NO_NAMESPACES }, () => {
  let database: TestDatabase;
  let ctx: AppContext;
  let hostsFile: string;
  let formId: string;
  let env: NodeJS.ProcessEnv;
  const servers: ServerProcess[] = [];

  before(async () => {
    database = await createTestDatabase();
    hostsFile = path.join(database.dataDir, 'hosts');
    // 224.0.0.1 (multicast) has no route on any host; 8.8.8.8 has none in a namespace without network
    fs.writeFileSync(hostsFile, '127.0.0.1 localhost\n224.0.0.1 unrouted.example\n8.8.8.8 public.example\n');
    env = cliEnv(database, {
      FORMGATE_HOST: '127.0.0.1',
      FORMGATE_PORT: '0',
      FORMGATE_SUBMIT_PORT: '0',
      FORMGATE_RATE_LIMIT_API: 'off',
      FORMGATE_RATE_LIMIT_SUBMIT: 'off',
    });
    ctx = await openContext(buildConfig({ databaseUrl: database.url, dataDir: database.dataDir, allowPrivateWebhooks: '1' }));
    const { user, workspace } = await ctx.users.createUser(`unrouted-${process.pid}@example.com`);
    await ctx.workspaces.setPlan(workspace.id, 'BUNDLE_50000', { tellOwners: false });
    ({ id: formId } = await ctx.forms.createForm(user.id, workspace.id, { name: 'Unrouted webhook', webhookUrl: 'https://unrouted.example/hook' }));
  });
  after(async () => {
    for (const server of servers) server.child.kill('SIGTERM');
    await Promise.all(servers.map((s) => s.waitForExit(5_000).catch(() => undefined)));
    for (const server of servers) server.kill();
    await Promise.all(servers.map((s) => s.waitForExit(5_000).catch(() => undefined)));
    await ctx?.close();
    await database?.drop();
  });

  /** `formgate serve` under the test's /etc/hosts, and without any network with `no-network`. */
  function serveInNamespace(network: 'keep-network' | 'no-network', extra: Record<string, string> = {}): ServerProcess {
    const server = spawnServe({ ...env, ...extra }, ['--import', 'tsx', 'test/helpers/in-namespace.ts', hostsFile, network, process.execPath, ...FROM_SOURCE]);
    servers.push(server);
    return server;
  }

  async function jobOf(jobId: string) {
    return ctx.database.db
      .selectFrom('jobs')
      .select(['status', 'attempts', 'leaseUntil', 'lastError', 'runAt'])
      .where('id', '=', jobId)
      .executeTakeFirstOrThrow();
  }

  /** Brings a job's next try forward to now (instead of waiting out its backoff). */
  async function dueNow(jobId: string): Promise<void> {
    await ctx.database.db.updateTable('jobs').set({ runAt: 0 }).where('id', '=', jobId).execute();
  }

  /** The try was recorded as transient: the job waits for its next try, claimed by no one. */
  async function assertRetried(jobId: string, attempts: number): Promise<void> {
    // the worker logs a failed try just before it records it
    const deadline = Date.now() + 10_000;
    while ((await jobOf(jobId)).leaseUntil !== null && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    const job = await jobOf(jobId);
    assert.equal(job.status, 'pending');
    assert.equal(job.attempts, attempts);
    assert.equal(job.leaseUntil, null, 'the job is not left claimed');
    assert.match(job.lastError ?? '', AT_ONCE);
    const tries = await ctx.database.db.selectFrom('jobAttempts').select(['outcome', 'error']).where('jobId', '=', jobId).execute();
    assert.equal(tries.length, attempts);
    assert.ok(
      tries.every((t) => t.outcome === 'retry'),
      JSON.stringify(tries),
    );
  }

  /** Whatever happened, the server is gone before the next test starts (it would claim that test's jobs). */
  async function stopped(server: ServerProcess): Promise<void> {
    if (server.child.exitCode !== null || server.child.signalCode !== null) return;
    server.child.kill('SIGTERM');
    await server.waitForExit().catch(() => server.kill());
  }

  async function stop(server: ServerProcess): Promise<void> {
    server.child.kill('SIGTERM');
    const exit = await server.waitForExit();
    assert.deepEqual(exit, { code: 0, signal: null }, `exit ${JSON.stringify(exit)}; stderr: ${server.stderr()}`);
  }

  it('keeps serving when a webhook’s host resolves to an address with no route, and retries the job', async () => {
    const server = serveInNamespace('keep-network', { FORMGATE_ALLOW_PRIVATE_WEBHOOKS: '1' });
    try {
      const { submitUrl, baseUrl } = (await server.waitForLine(READY, 'the ready line', 20_000)).json!;
      const submit = async (message: string) => {
        const answer = await fetch(`${submitUrl}/${formId}`, {
          method: 'POST',
          headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
          body: `message=${message}`,
        });
        assert.equal(answer.status, 200, await answer.clone().text());
        return ((await answer.json()) as { id: string }).id;
      };
      const webhookJobOf = (submissionId: string) =>
        ctx.database.db.selectFrom('jobs').select('id').where('submissionId', '=', submissionId).where('kind', '=', 'webhook').executeTakeFirstOrThrow();
      const first = await submit('one');
      const job = await webhookJobOf(first);
      await server.waitForLine(failedTry(job.id, 1), 'the first try to fail');
      await assertRetried(job.id, 1);

      // still serving: both surfaces answer, a second submission is accepted and its webhook tried
      assert.equal((await fetch(`${baseUrl.replace(/\/public\/v1$/, '')}/healthz`)).status, 200);
      const second = await submit('two');
      const secondJob = await webhookJobOf(second);
      await server.waitForLine(failedTry(secondJob.id, 1), 'the second submission’s try to fail');

      // and the first job really runs again, in the same process
      await dueNow(job.id);
      await server.waitForLine(failedTry(job.id, 2), 'the second try of the first job');
      await assertRetried(job.id, 2);
      assert.equal(server.child.exitCode, null, 'the server is still running');
      await stop(server);
      assert.ok(!server.lines.some((l) => /uncaught|unhandled/.test(String(l.json?.msg))), 'no error went uncaught');
    } finally {
      await stopped(server);
    }
  });

  it('keeps serving in a network namespace with no route, where a public address cannot be reached', {
    skip: TEST_DIALECT !== 'sqlite' && 'SQLite only: the PostgreSQL server is on the loopback of the namespace the test runs in',
  }, async () => {
    const server = serveInNamespace('no-network');
    try {
      await server.waitForLine(READY, 'the ready line');
      // each try goes to the form's webhook URL as it is then (issue 39, item 3): the public one here
      await ctx.database.db.updateTable('forms').set({ webhookUrl: 'https://public.example/hook' }).where('id', '=', formId).execute();
      // the server cannot be reached from outside its namespace: the jobs are written into the database
      const enqueue = (n: number) =>
        ctx.database.transaction((trx) =>
          enqueueJob(trx, { kind: 'webhook', payload: { url: 'https://public.example/hook', formId, fields: { n } }, idempotencyKey: `netns-${n}` }),
        );
      const first = await enqueue(1);
      await server.waitForLine(failedTry(first, 1), 'the first try to fail');
      await assertRetried(first, 1);
      const second = await enqueue(2);
      await server.waitForLine(failedTry(second, 1), 'a later job’s try to fail');
      await dueNow(first);
      await server.waitForLine(failedTry(first, 2), 'the second try of the first job');
      await assertRetried(first, 2);
      await stop(server);
    } finally {
      await stopped(server);
    }
  });
});
