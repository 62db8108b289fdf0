import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openContext, type AppContext } from '../../src/context.js';
import { testConfig } from '../helpers/app.js';
import { buildProgram, type BuiltProgram } from '../helpers/built-program.js';
import { cliEnv, MANY_VISITORS_FROM_ONE_ADDRESS, spawnServe, type LogLine, type ServerProcess } from '../helpers/cli.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../helpers/database.js';
import { until } from '../helpers/eventually.js';
import { printFigures } from '../helpers/figures.js';
import { assertNothingLost, auditLoad, failedJobs, storedSubmissions, unexplainedCopies, waitForDrain } from '../helpers/load-audit.js';
import { request } from '../helpers/submit.js';
import { CADDY_BINARY, documented, freePort, NGINX_BINARY, startCaddy, startNginx } from '../helpers/documented-proxies.js';
import { postFiles, uploadSizesAtLimit } from '../helpers/upload-post.js';
import { uploadCeilings } from '../../src/domain/uploads.js';
import { startSubmitLoad } from '../helpers/submit-load.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

// Issue 38, items 1 and 2: the two-instance configurations of docs/configuration.md ("Two or more
// instances"), nginx's and Caddy's as written there, in front of two `formgate serve` on one
// PostgreSQL database, each instance restarted in turn (SIGTERM, exit, start, serving again) under
// a steady stream of posts through the proxy, with the default drain window. No post may fail, and
// each is stored once and its webhook delivered once (or a counted copy of a try a stop cut off).

const CADDYFILE = fs.readFileSync(new URL('../../deploy/compose/postgres/Caddyfile', import.meta.url), 'utf8');
/** Each instance restarted this many times per proxy, in turn. */
const ROUNDS = 2;
const READY = (line: LogLine) => String(line.json?.msg ?? '').startsWith('Formgate is ready');
/** The documented ports of the two instances (dashboard, submit), replaced by free ones here. */
const DOCUMENTED_PORTS = [
  [8080, 8081],
  [8090, 8091],
] as const;

/** The option lines inside each `reverse_proxy { … }` of a Caddyfile, without comments or indentation. */
function proxyOptions(caddyfile: string): string[][] {
  return [...caddyfile.matchAll(/reverse_proxy [^\n]*\{\n([\s\S]*?)\n\s*\}/g)].map((match) =>
    match[1]!
      .split('\n')
      .map((line) => line.replace(/#.*/, '').trim())
      .filter(Boolean),
  );
}

/** The documented instance ports replaced by this run's. */
function withPorts(text: string, ports: number[][]): string {
  return text.replace(/127\.0\.0\.1:(\d+)\b/g, (whole, port: string) => {
    for (const [instance, documentedPorts] of DOCUMENTED_PORTS.entries()) {
      const surface = (documentedPorts as readonly number[]).indexOf(Number(port));
      if (surface >= 0) return `127.0.0.1:${ports[instance]![surface]}`;
    }
    return whole;
  });
}

interface Proxy {
  name: string;
  /** Whether it asks each instance's /healthz itself (active health checks). */
  asksHealth: boolean;
  binary: string | undefined;
  start(folder: string, port: number, ports: number[][]): ChildProcess;
}

const NGINX: Proxy = {
  name: 'nginx',
  asksHealth: false,
  binary: NGINX_BINARY,
  start: (folder, port, ports) => startNginx(folder, port, withPorts(documented('nginx', 'upstream formgate_submit'), ports)),
};

const CADDY: Proxy = {
  name: 'Caddy',
  asksHealth: true,
  binary: CADDY_BINARY,
  start: (folder, port, ports) => startCaddy(folder, port, withPorts(documented('caddy', 'health_uri'), ports)),
};

describe(`rolling restarts of two instances behind the documented nginx and Caddy configurations (${TEST_DIALECT})`, {
  skip: TEST_DIALECT !== 'postgres' && 'PostgreSQL only: several instances need a database server (SQLite is one process’s file)',
}, () => {
  let database: TestDatabase;
  let ctx: AppContext;
  let hook: WebhookReceiver;
  let built: BuiltProgram;
  let formId: string;
  let uploadFormId: string;
  let ports: number[][];
  const instances: (ServerProcess | null)[] = [null, null];
  const everyServer: ServerProcess[] = [];

  before(async () => {
    database = await createTestDatabase();
    [hook, built] = await Promise.all([startWebhookReceiver({ status: 200 }), buildProgram()]);
    ctx = await openContext(testConfig(database, { allowPrivateWebhooks: 'true' }));
    const { user, workspace } = await ctx.users.createUser(`restarts-${process.pid}@example.com`);
    await ctx.workspaces.setPlan(workspace.id, 'BUNDLE_50000', { tellOwners: false });
    formId = (await ctx.forms.createForm(user.id, workspace.id, { name: 'Restarts', webhookUrl: hook.url })).id;
    const { maxFileSize, maxTotalSize } = uploadCeilings('BUNDLE_50000');
    uploadFormId = (await ctx.forms.createForm(user.id, workspace.id, { name: 'Uploads', fileUploads: { maxFileSize, maxTotalSize, allowedTypes: ['.pdf'] } }))
      .id;
    ports = [
      [await freePort(), await freePort()],
      [await freePort(), await freePort()],
    ];
    await Promise.all([0, 1].map((n) => start(n)));
  });
  after(async () => {
    for (const server of everyServer) server.kill();
    await Promise.all(everyServer.map((s) => s.waitForExit(5_000).catch(() => undefined)));
    await ctx?.close();
    await hook?.close();
    built?.remove();
    await database?.drop();
  });

  it('the documented Caddy two-instance block is the Caddyfile of deploy/compose/postgres', () => {
    assert.deepEqual(proxyOptions(documented('caddy', 'health_uri')), proxyOptions(CADDYFILE));
  });

  /** Instance `n` on its ports, with the default drain window (unset: cliEnv turns it off for other tests). */
  async function start(n: number): Promise<ServerProcess> {
    const env = cliEnv(database, {
      FORMGATE_HOST: '127.0.0.1',
      FORMGATE_PORT: String(ports[n]![0]),
      FORMGATE_SUBMIT_PORT: String(ports[n]![1]),
      FORMGATE_PUBLIC_URL: 'https://forms.example.com',
      FORMGATE_SUBMIT_URL: 'https://submit.example.com',
      FORMGATE_TRUST_PROXY: 'true',
      ...MANY_VISITORS_FROM_ONE_ADDRESS,
      FORMGATE_ALLOW_PRIVATE_WEBHOOKS: 'true',
      FORMGATE_DELIVERY_LEASE: '5s',
    });
    delete env.FORMGATE_DRAIN_WINDOW;
    const server = spawnServe(env, built.program);
    everyServer.push(server);
    instances[n] = server;
    await server.waitForLine(READY, `instance ${n + 1}'s ready line`, 30_000);
    return server;
  }

  for (const proxy of [NGINX, CADDY]) {
    it(`${proxy.name}: no post fails while each instance is restarted in turn, and each is stored and delivered once`, {
      skip: !proxy.binary && `SKIPPED: ${proxy.name} is not installed`,
      timeout: 120_000,
    }, async () => {
      const folder = fs.mkdtempSync(path.join(os.tmpdir(), `formgate-restarts-${proxy.name.toLowerCase()}-`));
      const port = await freePort();
      const child = proxy.start(folder, port, ports);
      let errors = '';
      child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
      const runId = `restart-${proxy.name.toLowerCase()}-${randomBytes(3).toString('hex')}`;
      const load = startSubmitLoad({ runId, formIds: [formId], concurrency: 4, pauseMs: 40, maxRequests: 4_000, subnet: 74, host: 'submit.example.com' });
      try {
        await until(
          `${proxy.name} passes requests on`,
          () =>
            request('GET', `http://127.0.0.1:${port}/healthz`, null, { host: 'submit.example.com' }).then(
              (answer) => answer.status === 200,
              () => false,
            ),
          30_000,
        );
        load.setTargets([`http://127.0.0.1:${port}`]);
        const started = Date.now();
        for (let round = 0; round < ROUNDS; round++) {
          for (const n of [0, 1]) {
            const stopping = instances[n]!;
            assert.ok(stopping.child.kill('SIGTERM'));
            assert.deepEqual(await stopping.waitForExit(20_000), { code: 0, signal: null }, stopping.stderr());
            assert.ok(stopping.lines.some((l) => l.json?.msg === 'stopped'));
            const restarted = await start(n);
            // the documented procedure: the next instance once this one is healthy (its own /healthz)
            await until(`instance ${n + 1} healthy`, () =>
              request('GET', `http://127.0.0.1:${ports[n]![0]}/healthz`, null, {}).then(
                (answer) => answer.status === 200,
                () => false,
              ),
            );
            // Caddy asks each second: until it has, the restarted instance gets nothing (nginx, with
            // max_fails=0, tries it at once); docs/configuration.md says to give it that second
            if (proxy.asksHealth)
              await restarted.waitForLine(
                (l) => l.json?.msg === 'request' && l.json.method === 'POST' && l.json.status === 200,
                `a post reaching the restarted instance ${n + 1} through ${proxy.name}`,
                30_000,
              );
          }
        }
        const loadSeconds = (Date.now() - started) / 1000;
        // item 8: the two-instance blocks take a submission at the largest plan's upload limit too
        const { maxFileSize, maxTotalSize } = uploadCeilings('BUNDLE_50000');
        const upload = await postFiles(`http://127.0.0.1:${port}/${uploadFormId}`, 'submit.example.com', uploadSizesAtLimit(maxFileSize, maxTotalSize));
        assert.equal(upload.status, 200, JSON.stringify(upload.body).slice(0, 300));
        const report = await load.stop();
        await waitForDrain(ctx.database.db, 60_000);
        const answers = report.answers;
        const audit = auditLoad({
          answers,
          stored: (await storedSubmissions(ctx.database.db, [formId])).filter((row) => String(row.data.marker ?? '').startsWith(`${runId}-`)),
          delivers: () => ({ email: false, webhook: true }),
          mails: [],
          hooks: hook.requests.filter((r) => r.rawBody.includes(runId)),
          markerPattern: new RegExp(`${runId}-\\d+`),
        });
        const failed = answers.filter((answer) => answer.outcome !== 'acknowledged');
        printFigures(`rolling restarts behind ${proxy.name}`, {
          requestsSent: report.sent,
          faultsInjected: ROUNDS * 2,
          submissionsAcknowledged: audit.acknowledged,
          submissionsFound: audit.found,
          deliveriesExpected: audit.deliveriesExpected,
          delivered: audit.delivered,
          duplicated: audit.webhookDuplicates,
          more: { 'failed posts': failed.length, 'load seconds': loadSeconds.toFixed(1) },
        });
        assert.deepEqual(
          failed.map((answer) => `${answer.outcome} ${answer.status ?? ''} ${answer.detail ?? ''}`),
          [],
          `no post failed through ${proxy.name}; its log: ${errors}${proxy.name === 'nginx' ? fs.readFileSync(path.join(folder, 'error.log'), 'utf8') : ''}`,
        );
        assertNothingLost(audit, {
          minAcknowledged: ROUNDS * 2 * 10,
          failed: await failedJobs(ctx.database.db, [formId]).then((jobs) => jobs),
          unexplained: await unexplainedCopies(ctx.database.db, audit.extraCopies),
          duplicateBound: ROUNDS * 2 * 16,
        });
      } finally {
        load.kill();
        child.kill('SIGTERM');
        fs.rmSync(folder, { recursive: true, force: true });
      }
    });
  }
});
