import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildConfig } from '../src/config/config.js';
import { openContext } from '../src/context.js';
import { type BuiltProgram, buildProgram } from './helpers/built-program.js';
import { cliEnv, npmCheckout, seedUpgradedForm, spawnNpmStart, spawnServe, type LogLine, type ServerProcess } from './helpers/cli.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from './helpers/database.js';
import { request } from './helpers/submit.js';

// Issue 38, items 1 and 2: on SIGTERM an instance first stops being chosen (/healthz 503 `stopping`
// on both ports) while it keeps serving for FORMGATE_DRAIN_WINDOW, then closes its listeners.

const READY = (line: LogLine) => String(line.json?.msg ?? '').startsWith('Formgate is ready');
const SHUTTING_DOWN = (line: LogLine) => String(line.json?.msg ?? '').startsWith('shutting down');
const msgOf = (line: LogLine) => String(line.json?.msg ?? '');
/** A window no test waits out: the stop ends early only if something ended the window. */
const LONG_WINDOW = '60s';
const READY_PROBE = new URL('./helpers/ready-probe.mjs', import.meta.url).href;

/** One request on `agent` (kept alive), with the answer's Connection header. */
function onConnection(agent: http.Agent, method: string, url: string, body: string | null, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; connection: string | undefined; body: any }>((resolve, reject) => {
    const outgoing = http.request(url, { method, agent, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.once('end', () => resolve({ status: response.statusCode!, connection: response.headers.connection, body: text ? JSON.parse(text) : null }));
    });
    outgoing.once('error', reject);
    outgoing.end(body ?? undefined);
  });
}

describe(`formgate serve's drain window (${TEST_DIALECT})`, () => {
  let database: TestDatabase;
  let bundle: BuiltProgram | undefined;
  let formId: string;
  const servers: ServerProcess[] = [];

  before(async () => {
    bundle = await buildProgram();
    database = await createTestDatabase();
    ({ formId } = await seedUpgradedForm(database, { email: `drain-${process.pid}@example.com`, formName: 'Drain window' }));
  });
  after(async () => {
    for (const server of servers) server.kill();
    await Promise.all(servers.map((s) => s.waitForExit(5_000).catch(() => undefined)));
    await database?.drop();
    bundle?.remove();
  });

  async function start(window: string | undefined) {
    const extra: Record<string, string> = {
      FORMGATE_HOST: '127.0.0.1',
      FORMGATE_PORT: '0',
      FORMGATE_SUBMIT_PORT: '0',
      FORMGATE_RATE_LIMIT_SUBMIT: 'off',
      FORMGATE_METRICS: 'on',
    };
    const env = cliEnv(database, extra);
    // unset: the default; cliEnv turns the window off for every other test
    if (window === undefined) delete env.FORMGATE_DRAIN_WINDOW;
    else env.FORMGATE_DRAIN_WINDOW = window;
    const server = spawnServe(env, bundle!.program);
    servers.push(server);
    const ready = await server.waitForLine(READY, 'the ready line');
    const { baseUrl, submitUrl } = ready.json!;
    return { server, submitUrl: String(submitUrl), publicUrl: String(baseUrl).slice(0, -'/public/v1'.length) };
  }

  it('says "stopping" at once on both ports while it still serves, connections kept alive; a repeat within a second is the same stop, a later signal ends the window', async () => {
    const { server, submitUrl, publicUrl } = await start(LONG_WINDOW);
    // a connection kept alive from before the signal, as a proxy's pool keeps one
    const pooled = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const warm = await onConnection(pooled, 'GET', `${submitUrl}/healthz`, null);
      assert.deepEqual([warm.status, warm.connection, warm.body.status], [200, 'keep-alive', 'ok']);

      assert.ok(server.child.kill('SIGTERM'));
      const line = await server.waitForLine(SHUTTING_DOWN, 'the shutdown line');
      assert.equal(line.json!.drainWindowMs, 60_000);
      for (const url of [`${publicUrl}/healthz`, `${submitUrl}/healthz`]) {
        const answer = await request('GET', url, null, {});
        assert.equal(answer.status, 503, url);
        assert.equal(answer.body.status, 'stopping', url);
        // kept alive: a proxy that keeps sending uses its pooled connections, not a new connect per request (issue 40: one completed just before the listener's close was reset)
        assert.equal(answer.headers.get('connection'), 'keep-alive', `${url}: connections are kept through the window`);
      }
      const metrics = await request('GET', `${publicUrl}/metrics`, null, {});
      assert.match(String(metrics.body), /^formgate_stopping 1$/m);
      // a visitor's post on the connection kept from before is served, and the connection kept
      const posted = await onConnection(pooled, 'POST', `${submitUrl}/${formId}`, 'message=during+the+window', {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      });
      assert.deepEqual([posted.status, posted.connection], [200, 'keep-alive'], JSON.stringify(posted.body));

      // the same signal again at once (a process group's and npm's): the window goes on
      assert.ok(server.child.kill('SIGTERM'));
      await server.waitForLine((l) => msgOf(l).includes('taken as the same stop'), 'the repeat taken as the same stop');
      assert.equal((await request('GET', `${submitUrl}/healthz`, null, {})).status, 503, 'still listening after the repeat');

      // the schedule of the test, not a wait for a state: a signal more than a second after the first is the operator's
      await sleep(1_200);
      assert.ok(server.child.kill('SIGTERM'));
      await server.waitForLine((l) => msgOf(l).includes('the drain window ends now'), 'the window ended by the second signal');
      assert.deepEqual(await server.waitForExit(), { code: 0, signal: null }, server.stderr());
      const order = server.lines.map(msgOf).filter((m) => /^(shutting down|drain window over|stopped)/.test(m) || m.endsWith('ends now'));
      assert.deepEqual(
        order.map((m) => m.split(':')[0]),
        ['shutting down', 'SIGTERM again', 'drain window over', 'stopped'],
      );
      assert.equal(server.lines.find((l) => msgOf(l).startsWith('drain window over'))?.json?.endedBy, 'signal', 'ended by the second signal, not its timer');
      await assert.rejects(request('GET', `${submitUrl}/healthz`, null, {}), /ECONNREFUSED/);

      const ctx = await openContext(buildConfig({ databaseUrl: database.url, dataDir: database.dataDir }));
      try {
        const stored = await ctx.database.db.selectFrom('submissions').select('id').where('id', '=', posted.body.id).execute();
        assert.equal(stored.length, 1, 'the post served during the window is stored');
      } finally {
        await ctx.close();
      }
    } finally {
      pooled.destroy();
    }
  });

  it('handles SIGTERM from the moment it says it is ready', async () => {
    // the fresh-clone runs saw a serve killed by the SIGTERM sent on its ready line: it said so before listening for signals
    const env = cliEnv(database, { FORMGATE_HOST: '127.0.0.1', FORMGATE_PORT: '0', FORMGATE_SUBMIT_PORT: '0' });
    const server = spawnServe(env, ['--import', READY_PROBE, ...bundle!.program]);
    servers.push(server);
    await server.waitForLine(READY, 'the ready line');
    const probe = server.lines.find((l) => l.raw.startsWith('probe: '));
    assert.equal(probe?.raw, 'probe: SIGTERM listeners when ready: 1', server.lines.map((l) => l.raw).join('\n'));
    assert.ok(server.child.kill('SIGTERM'));
    assert.deepEqual(await server.waitForExit(), { code: 0, signal: null }, server.stderr());
  });

  it('by default keeps serving for 3 s, then closes its listeners and exits 0', async () => {
    const { server } = await start(undefined);
    assert.ok(server.child.kill('SIGTERM'));
    assert.deepEqual(await server.waitForExit(), { code: 0, signal: null }, server.stderr());
    assert.equal(server.lines.find(SHUTTING_DOWN)!.json!.drainWindowMs, 3_000);
    // the wait happened (not skipped): the window's own 3 s timer ended it, as its log line says; not a stopwatch
    // against the log's clock (CI saw 2999 ms for 3 s: a timer may fire a millisecond early by the wall clock)
    const over = server.lines.find((l) => msgOf(l).startsWith('drain window over'))?.json;
    assert.deepEqual([over?.drainWindowMs, over?.endedBy], [3_000, 'timer']);
    assert.ok(!server.lines.some((l) => msgOf(l).endsWith('ends now')));
  });

  it('SIGINT (Ctrl-C in a terminal) stops without the window', async () => {
    const { server } = await start(LONG_WINDOW);
    assert.ok(server.child.kill('SIGINT'));
    assert.deepEqual(await server.waitForExit(), { code: 0, signal: null }, server.stderr());
    assert.equal(server.lines.find(SHUTTING_DOWN)!.json!.drainWindowMs, 0);
    assert.ok(!server.lines.some((l) => msgOf(l).startsWith('drain window over')));
  });

  it('npm start: SIGTERM sent to the whole process group (systemd; npm may pass its own on) does not cut the window short', async () => {
    const folder = npmCheckout('npm-drain', bundle!);
    const env = cliEnv(database, { FORMGATE_HOST: '127.0.0.1', FORMGATE_PORT: '0', FORMGATE_SUBMIT_PORT: '0', FORMGATE_DRAIN_WINDOW: '2s' });
    let serverPid: number | undefined;
    try {
      const npm = spawnNpmStart(folder, env, true);
      servers.push(npm);
      const ready = await npm.waitForLine(READY, 'the ready line through npm', 30_000);
      serverPid = ready.json!.pid as number;
      process.kill(-npm.child.pid!, 'SIGTERM');
      assert.deepEqual(await npm.waitForExit(), { code: 0, signal: null }, npm.stderr());
      const lines = npm.lines.filter((l) => l.json?.pid === serverPid);
      const messages = lines.map(msgOf);
      // npm passes its own on, or not (it depends on its version and on timing): either way the
      // window runs its full length, and a repeat, when there is one, is said to be the same stop
      assert.ok(!messages.some((m) => m.endsWith('ends now')), `it did not end the window: ${messages.join(' | ')}`);
      const over = lines.find((l) => msgOf(l).startsWith('drain window over'))?.json;
      assert.deepEqual([over?.drainWindowMs, over?.endedBy], [2_000, 'timer'], 'the listeners closed once the window was over, ended by its own timer');
      const repeats = messages.filter((m) => m.startsWith('SIGTERM again'));
      assert.ok(
        repeats.every((m) => m.includes('taken as the same stop')),
        repeats.join(' | '),
      );
      assert.ok(messages.includes('stopped'));
    } finally {
      if (serverPid !== undefined) {
        try {
          process.kill(serverPid, 'SIGKILL');
        } catch {}
      }
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});
