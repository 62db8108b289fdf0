import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { buildConfig } from '../../src/config/config.js';
import { openContext, type AppContext } from '../../src/context.js';
import { checkAcknowledged } from '../helpers/acknowledged.js';
import type { TestApp } from '../helpers/app.js';
import { cliEnv, MANY_VISITORS_FROM_ONE_ADDRESS, spawnServe, type LogLine, type ServerProcess } from '../helpers/cli.js';
import { DashboardClient } from '../helpers/dashboard.js';
import { TEST_DIALECT, type TestDatabase } from '../helpers/database.js';
import { until } from '../helpers/eventually.js';
import { printFigures } from '../helpers/figures.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { BROWSER_ACCEPT, JSON_ACCEPT, request } from '../helpers/submit.js';
import { SubmissionStream } from '../helpers/submission-stream.js';

// `formgate serve` with its data folder on a small filesystem of the test's own (a tmpfs), under a
// steady stream of submissions: (a) the disk fills up, (b) the database's files cannot be written
// (a read-only filesystem). Visitors must get an honest 503 (never a 500, never a success for
// something not stored), the process must keep running and recover by itself, and every
// acknowledged submission must be stored once and delivered.
//
// NOTE: Linux refuses `mount -o remount,ro` while a file on it is open for writing (SQLite's are), so
// (b) makes every write of the server to its files fail with EROFS, as a filesystem turned
// read-only under a running process does, by strace's syscall fault injection on `pwrite64` (the
// call SQLite writes its database and WAL with), and ends it by detaching strace.

const READY = (line: LogLine) => typeof line.json?.msg === 'string' && line.json.msg.startsWith('Formgate is ready');
const PASSWORD = 'disk-full-password-1';

function canMount(): boolean {
  if (process.getuid?.() !== 0) return false;
  const probe = fs.mkdtempSync(path.join(os.tmpdir(), 'formgate-mount-probe-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe]).status === 0;
  if (mounted) spawnSync('umount', [probe]);
  fs.rmdirSync(probe);
  return mounted;
}

const skipReason =
  TEST_DIALECT !== 'sqlite'
    ? 'SQLite only: a full or read-only disk under the data folder (PostgreSQL has its own suite, postgres-connections)'
    : !canMount()
      ? 'SKIPPED: needs root and `mount -t tmpfs` to give the data folder a small filesystem of its own'
      : false;
const hasStrace = !skipReason && spawnSync('strace', ['-V']).status === 0;

/** Fills the filesystem of `file` until the kernel answers ENOSPC; answers the bytes written. */
function fillDisk(file: string): number {
  const fd = fs.openSync(file, 'w');
  let bytes = 0;
  try {
    for (const size of [1 << 20, 4096, 512]) {
      const chunk = Buffer.alloc(size, 1);
      try {
        for (let i = 0; i < 4096; i++) bytes += fs.writeSync(fd, chunk);
        assert.fail('the filesystem did not fill up');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  return bytes;
}

describe('SQLite on a disk that fills up or turns read-only', { skip: skipReason }, () => {
  let mountPoint = '';
  let mounted = false;
  let ctx: AppContext;
  let sink: SmtpSink;
  let server: ServerProcess;
  let strace: ChildProcess | null = null;
  let stream: SubmissionStream;
  let formId = '';
  let workspaceId = '';
  let token = '';
  let submitUrl = '';
  let baseUrl = '';
  let dashboard: DashboardClient;
  let faults = 0;
  let extraRequests = 0;
  let errorLines = 0;
  const fiveHundreds: string[] = [];
  const started = Date.now();

  before(async () => {
    mountPoint = fs.mkdtempSync(path.join(os.tmpdir(), 'formgate-disk-'));
    // room for the database and a WAL that grows by a few MB here, but far from its checkpoint (16 MB)
    assert.equal(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=32m', 'tmpfs', mountPoint]).status, 0, 'mount the tmpfs');
    mounted = true;
    const database: TestDatabase = { url: `sqlite:${path.join(mountPoint, 'formgate.db')}`, dataDir: mountPoint, drop: async () => undefined };
    sink = await startSmtpSink();
    ctx = await openContext(buildConfig({ databaseUrl: database.url, dataDir: database.dataDir, confirmRecipients: 'off' }));
    const email = `disk-${process.pid}@example.com`;
    const { user, workspace } = await ctx.users.createUser(email, PASSWORD);
    workspaceId = workspace.id;
    await ctx.workspaces.setPlan(workspace.id, 'BUNDLE_50000', { tellOwners: false });
    ({ id: formId } = await ctx.forms.createForm(user.id, workspace.id, { name: 'Disk test', notificationEmails: ['owner@example.com'] }));
    ({ secret: token } = await ctx.tokens.createToken(user.id, { name: 'disk', scopes: ['forms:read', 'forms:write'] }));
    server = spawnServe(
      cliEnv(database, {
        FORMGATE_HOST: '127.0.0.1',
        FORMGATE_PORT: '0',
        FORMGATE_SUBMIT_PORT: '0',
        ...MANY_VISITORS_FROM_ONE_ADDRESS,
        FORMGATE_SMTP_URL: sink.url,
      }),
    );
    ({ submitUrl, baseUrl } = (await server.waitForLine(READY, 'the ready line', 30_000)).json!);
    // a person logged in to the dashboard before the fault, on the page that makes a form
    dashboard = new DashboardClient({ publicUrl: baseUrl.replace(/\/public\/v1$/, '') } as TestApp);
    await dashboard.enter('/login', email, PASSWORD);
    assert.equal((await dashboard.get(`/w/${workspaceId}/forms/new`)).status, 200);
    stream = new SubmissionStream({ submitUrl, formId, concurrency: 2, gapMs: 20, maxRequests: 4_000, maxMs: 80_000 });
    stream.start();
    await stream.waitFor('acknowledged', 20);
  });

  after(async () => {
    if (process.env.FORMGATE_TEST_KEEP_LOG) fs.writeFileSync(process.env.FORMGATE_TEST_KEEP_LOG, server?.lines.map((l) => l.raw).join('\n') ?? '');
    await stream?.stop();
    await stopStrace();
    if (server) {
      server.child.kill('SIGTERM');
      await server.waitForExit().catch(() => server.kill());
    }
    await ctx?.close();
    await sink?.close();
    if (mounted) spawnSync('umount', ['-l', mountPoint]);
    if (mountPoint) fs.rmSync(mountPoint, { recursive: true, force: true });
  });

  /** A JSON call to the management API with the test's token. */
  async function api(method: string, route: string, body?: unknown) {
    extraRequests++;
    const answer = await request(method, `${baseUrl}${route}`, body === undefined ? null : JSON.stringify(body), {
      authorization: `Bearer ${token}`,
      accept: JSON_ACCEPT,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    });
    if (answer.status >= 500 && answer.status !== 503) fiveHundreds.push(`${method} ${route}: ${answer.status}`);
    return answer;
  }

  /** While the database cannot write: every surface refuses a write with an honest 503, and still reads. */
  async function checkSurfacesRefuse(): Promise<void> {
    // a browser's plain form post: an error page saying nothing was stored, with Retry-After
    extraRequests++;
    const page = await request('POST', `${submitUrl}/${formId}`, 'message=from+a+browser', {
      accept: BROWSER_ACCEPT,
      'content-type': 'application/x-www-form-urlencoded',
    });
    assert.equal(page.status, 503, String(page.body).slice(0, 300));
    assert.ok(Number(page.headers.get('retry-after')) > 0);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(String(page.body), /nothing was stored/);

    // the management API: a read is served (the token's last-use bookkeeping waits), a write refused
    assert.equal((await api('GET', `/forms?workspaceId=${workspaceId}`)).status, 200);
    const created = await api('POST', '/forms', { workspaceId, name: 'made during the fault' });
    assert.equal(created.status, 503, JSON.stringify(created.body));
    assert.equal(created.body.code, 'storage_unavailable');
    assert.ok(Number(created.headers.get('retry-after')) > 0);

    // the dashboard: a page asking to try again
    extraRequests++;
    const made = await dashboard.post(`/w/${workspaceId}/forms/new`, { name: 'made during the fault' });
    assert.equal(made.status, 503, made.html.slice(0, 500));
    assert.ok(Number(made.headers.get('retry-after')) > 0);
    assert.match(made.html, /Try again in a moment/);

    // health: the database answers (reads are served), and its writes fail
    const answer = await health();
    assert.equal(answer.status, 200, 'a full disk takes no instance out: every instance shares it');
    const body = answer.body as { status: string; checks: { database: unknown } };
    assert.equal(body.status, 'degraded');
    assert.deepEqual(body.checks.database, { status: 'degraded', reason: 'database_writes_failing', reads: 'ok', writes: 'failing' });
  }

  /** Detaches strace from the server (its writes work again), if it is still attached. */
  async function stopStrace(): Promise<void> {
    const tracer = strace;
    strace = null;
    if (!tracer || tracer.exitCode !== null || tracer.signalCode !== null) return;
    const detached = new Promise((resolve) => tracer.once('exit', resolve));
    tracer.kill('SIGTERM');
    await detached;
  }

  /** Keeps the fault for a few seconds, through the delivery workers' polls and the search indexer's tries. */
  async function holdFault(faultStarted: number): Promise<void> {
    await stream.waitFor('refused', 15);
    await until('the fault to have lasted 3 s', () => Date.now() - faultStarted >= 3_000, 10_000, 50);
  }

  async function health(): Promise<{ status: number; body: unknown }> {
    extraRequests++;
    const answer = await request('GET', `${baseUrl.replace(/\/public\/v1$/, '')}/healthz`, null, {});
    return { status: answer.status, body: answer.body };
  }

  /** The server is the same process, still running, and takes submissions again by itself. */
  async function checkRecovers(what: string): Promise<void> {
    await stream.waitFor('acknowledged', 20, 30_000);
    assert.equal(server.child.exitCode, null, `the server exited during ${what}: ${server.stderr()}`);
    assert.equal(server.child.signalCode, null);
    const made = await api('POST', '/forms', { workspaceId, name: `made after ${what}` });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    await until(
      'health to say the database is ok again',
      async () => {
        const answer = await health();
        return answer.status === 200 && (answer.body as { checks: { database: { status: string } } }).checks.database.status === 'ok';
      },
      15_000,
      250,
    );
  }

  /**
   * No flood: errors are logged at most once per 10 s by each surface and the workers, every 5 s by
   * the search indexer, however many requests were refused (a line per request is the access log).
   */
  function assertLogsBounded(mark: number, requests: number, faultSeconds: number): void {
    const lines = server.lines.slice(mark);
    const errors = lines.filter((line) => (line.json?.level ?? 0) >= 50);
    const bound = 4 * (1 + Math.ceil(faultSeconds / 10)) + (1 + Math.ceil(faultSeconds / 5));
    assert.ok(
      errors.length <= bound,
      `${errors.length} errors logged (bound ${bound}) for ${requests} requests in ${faultSeconds} s: ${errors.map((l) => l.json?.msg).join(' | ')}`,
    );
    assert.ok(lines.length <= 2 * (requests + 20) + 20, `${lines.length} lines logged for ${requests} requests`);
    errorLines += errors.length;
  }

  it('answers 503 storage_unavailable while the disk is full, and takes submissions again once space is freed, without a restart', async () => {
    const filler = path.join(mountPoint, 'filler');
    const mark = server.lines.length;
    const sentBefore = stream.sent;
    const faultStarted = Date.now();
    fillDisk(filler);
    faults++;
    try {
      await stream.waitFor('refused', 15);
      await checkSurfacesRefuse();
      await holdFault(faultStarted);
    } finally {
      // also when a check failed: the tests after this one need the room
      fs.rmSync(filler, { force: true });
    }
    const faultSeconds = (Date.now() - faultStarted) / 1000;
    await checkRecovers('the disk full');
    assertLogsBounded(mark, stream.sent - sentBefore, faultSeconds);
    assert.deepEqual(stream.bad, [], 'no answer but a success or an honest 503');
  });

  it('answers 503 while the database files cannot be written (read-only), and recovers once they can, without a restart', {
    skip: !hasStrace && 'SKIPPED: needs strace (Debian package strace) to make the running server’s writes fail with EROFS',
  }, async () => {
    const mark = server.lines.length;
    const sentBefore = stream.sent;
    const faultStarted = Date.now();
    strace = spawn('strace', ['-qq', '-p', String(server.child.pid), '-e', 'trace=pwrite64', '-e', 'inject=pwrite64:error=EROFS', '-o', '/dev/null'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let straceSaid = '';
    strace.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      straceSaid += chunk;
    });
    const exited = new Promise((resolve) => strace!.once('exit', () => resolve('strace exited')));
    faults++;
    try {
      const first = await Promise.race([
        stream.waitFor('refused', 15).then(
          () => 'refused',
          (error: Error) => error.message,
        ),
        exited,
      ]);
      assert.equal(first, 'refused', `strace did not make the server's writes fail: ${straceSaid}`);
      await checkSurfacesRefuse();
      await holdFault(faultStarted);
    } finally {
      await stopStrace();
    }
    const faultSeconds = (Date.now() - faultStarted) / 1000;
    await checkRecovers('the read-only files');
    assertLogsBounded(mark, stream.sent - sentBefore, faultSeconds);
    assert.deepEqual(stream.bad, [], 'no answer but a success or an honest 503');
  });

  it('keeps every acknowledged submission once, delivers each, indexes the backlog, and never answered 500', async () => {
    await stream.stop();
    const figures = await checkAcknowledged(ctx.database, formId, stream, sink);
    await until('the search indexer to have indexed every submission', async () => (await backlog()) === 0, 20_000, 100);
    assert.equal(figures.refusedYetStored, 0, 'a submission refused with "nothing was stored" was stored');
    assert.deepEqual(stream.bad, []);
    assert.deepEqual(fiveHundreds, []);
    assert.equal(server.child.exitCode, null, 'the server is still running');
    printFigures('sqlite-disk', {
      requestsSent: stream.sent + extraRequests,
      faultsInjected: faults,
      // acknowledged, found, expected, delivered, duplicated: as checkAcknowledged counted them
      ...figures,
      more: {
        'refused with 503': stream.refused.length,
        'refused yet stored': figures.refusedYetStored,
        '5xx other than 503': stream.bad.length + fiveHundreds.length,
        'server log lines': server.lines.length,
        'error lines logged during the faults': errorLines,
        'wall time (s)': Math.round((Date.now() - started) / 100) / 10,
      },
    });
  });

  async function backlog(): Promise<number> {
    const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM search_backlog`.execute(ctx.database.db);
    return Number(rows[0]!.n);
  }
});
