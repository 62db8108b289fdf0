import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { VERSION } from '../../src/version.js';
import { printFigures } from '../helpers/figures.js';
import { buildProgram, type BuiltProgram } from '../helpers/built-program.js';
import { cliEnv, MANY_VISITORS_FROM_ONE_ADDRESS, killRunningCli, runCli, spawnServe, type LogLine, type ServerProcess } from '../helpers/cli.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../helpers/database.js';
import { until } from '../helpers/eventually.js';
import { buildPreviousRelease, migrationsSince, type PreviousRelease } from '../helpers/previous-release.js';
import { SteadyStream } from '../helpers/steady-stream.js';
import { request } from '../helpers/submit.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

// Issue 27: during a rolling upgrade the previous release and this one serve one PostgreSQL
// database side by side: the new one migrates while the old one takes submissions, both take them
// for a while, then the old one stops. Nothing acknowledged may be lost, nothing delivered twice
// under two keys, and the derived counts must need no repair.
const READY = (line: LogLine) => typeof line.json?.msg === 'string' && line.json.msg.startsWith('Formgate is ready');
const EVERY_MS = 15;
const MAX_SUBMISSIONS = 600;

interface Instance {
  server: ServerProcess;
  baseUrl: string;
  submitUrl: string;
}

describe(`a rolling upgrade from the previous release on one PostgreSQL database (${TEST_DIALECT})`, {
  skip: TEST_DIALECT !== 'postgres' && 'PostgreSQL only: two programs at once need a database server',
}, () => {
  let database: TestDatabase;
  let hook: WebhookReceiver;
  let previous: PreviousRelease;
  let current: BuiltProgram;
  let env: NodeJS.ProcessEnv;
  const servers: ServerProcess[] = [];

  before(async () => {
    database = await createTestDatabase();
    [hook, previous, current] = await Promise.all([startWebhookReceiver({ status: 200 }), buildPreviousRelease(), buildProgram()]);
    env = cliEnv(database, {
      FORMGATE_HOST: '127.0.0.1',
      FORMGATE_PORT: '0',
      FORMGATE_SUBMIT_PORT: '0',
      FORMGATE_ALLOW_PRIVATE_WEBHOOKS: 'true',
      ...MANY_VISITORS_FROM_ONE_ADDRESS,
    });
  });
  after(async () => {
    killRunningCli();
    for (const server of servers) server.kill();
    await Promise.all(servers.map((s) => s.waitForExit(5_000).catch(() => undefined)));
    await hook?.close();
    previous?.remove();
    current?.remove();
    await database?.drop();
  });

  async function start(program: string[]): Promise<Instance> {
    const server = spawnServe(env, program);
    servers.push(server);
    const ready = await server.waitForLine(READY, 'the ready line', 30_000);
    return { server, baseUrl: String(ready.json!.baseUrl), submitUrl: String(ready.json!.submitUrl) };
  }

  async function cliJson(program: string[], args: string[]): Promise<any> {
    const result = await runCli(env, [...args, '--json'], program);
    assert.equal(result.code, 0, `formgate ${args.join(' ')}: ${result.stderr}${result.stdout}`);
    return JSON.parse(result.stdout);
  }

  function api(instance: Instance, token: string, method: string, path: string, body?: unknown) {
    return request(method, `${instance.baseUrl}${path}`, body === undefined ? null : JSON.stringify(body), {
      authorization: `Bearer ${token}`,
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    });
  }

  function submit(instance: Instance, formId: string, ref: string) {
    return request('POST', `${instance.submitUrl}/${formId}`, JSON.stringify({ ref, message: `hello ${ref}` }), {
      'content-type': 'application/json',
      accept: 'application/json',
    });
  }

  async function version(instance: Instance): Promise<string> {
    return (await request('GET', `${instance.baseUrl.replace(/\/public\/v1$/, '')}/healthz`, null, {})).body.version;
  }

  it('keeps every acknowledged submission, delivers each once, and leaves no count to repair', { timeout: 240_000 }, async () => {
    assert.notEqual(previous.version, VERSION);
    // the account, as an operator provisions it with the previous release's own command line
    await cliJson(previous.program, ['migrate']);
    await cliJson(previous.program, ['users', 'create', '--email', 'upgrade@example.com']);
    const { token } = await cliJson(previous.program, [
      'tokens',
      'create',
      '--email',
      'upgrade@example.com',
      '--name',
      'upgrade',
      '--scopes',
      'workspaces:read,forms:read,forms:write,submissions:read',
    ]);

    const old = await start(previous.program);
    assert.equal(await version(old), previous.version);
    const workspaces = await api(old, token, 'GET', '/workspaces');
    assert.equal(workspaces.status, 200);
    const ownWorkspace = workspaces.body.data[0].id as string;
    await cliJson(previous.program, ['workspaces', 'set-plan', '--workspace', ownWorkspace, '--plan', 'BUNDLE_50000']);
    const created = await api(old, token, 'POST', '/forms', { workspaceId: ownWorkspace, name: 'Before the upgrade', webhookUrl: hook.url });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const formId = created.body.id as string;

    let fresh: Instance | null = null;
    const stream: SteadyStream = new SteadyStream(
      (n) => {
        // while both run, every other submission goes to each, as a load balancer would send them
        const target: Instance = stream.phase === 'old' || !fresh ? old : stream.phase === 'new' || n % 2 === 0 ? fresh : old;
        return submit(target, formId, `r${n}`);
      },
      { everyMs: EVERY_MS, max: MAX_SUBMISSIONS },
    );
    stream.phase = 'old';
    stream.start();
    await sleep(1_500);

    // the new release starts on the same database and migrates it while the old one serves
    fresh = await start(current.program);
    stream.phase = 'both';
    assert.equal(await version(fresh), VERSION);
    const migrated = fresh.server.lines.filter((l) => /^migration \S+ ran in \d+ ms$/.test(String(l.json?.msg ?? '')));
    const newMigrations = (await migrationsSince(previous.commit)).length;
    assert.equal(migrated.length, newMigrations, `the new release logs each migration it applies: ${fresh.server.lines.map((l) => l.raw).join('\n')}`);

    // a form made on the new release takes submissions through the old one
    const madeOnNew = await api(fresh, token, 'POST', '/forms', { workspaceId: ownWorkspace, name: 'After the upgrade' });
    assert.equal(madeOnNew.status, 201, JSON.stringify(madeOnNew.body));
    const throughOld = await submit(old, madeOnNew.body.id, 'through-old');
    assert.equal(throughOld.status, 200, JSON.stringify(throughOld.body));
    await sleep(2_000);

    // the old release leaves (SIGTERM drains it); the new one carries on alone
    old.server.child.kill('SIGTERM');
    assert.deepEqual(await old.server.waitForExit(), { code: 0, signal: null }, old.server.stderr());
    stream.phase = 'new';
    await sleep(1_000);
    await stream.stop();

    const refused = stream.results.filter((r) => r.status !== 200 && r.phase !== 'new');
    const acknowledged = stream.acknowledged();
    assert.ok(acknowledged.length >= 200, `a steady load went through (${acknowledged.length} acknowledged)`);
    assert.ok(stream.results.filter((r) => r.phase === 'both' && r.status === 200).length > 20, 'both releases took submissions side by side');
    // a request the old one was draining may be turned away; none may fail otherwise
    assert.ok(
      refused.every((r) => r.status === 503 || r.error !== null),
      JSON.stringify(refused.slice(0, 5)),
    );

    // every acknowledged submission is listed once by the new release, with what was typed
    const refOf = new Map<string, string>();
    let cursor: string | null = null;
    do {
      const page = await api(fresh, token, 'GET', `/forms/${formId}/submissions?limit=100${cursor ? `&startingAfter=${cursor}` : ''}`);
      assert.equal(page.status, 200, JSON.stringify(page.body));
      for (const submission of page.body.data) {
        assert.ok(!refOf.has(submission.id), `submission ${submission.id} is listed twice`);
        refOf.set(submission.id, submission.data.ref);
      }
      cursor = page.body.hasMore ? page.body.nextCursor : null;
    } while (cursor);
    for (const id of acknowledged) assert.ok(refOf.has(id), `acknowledged submission ${id} is listed`);

    // each one's webhook arrives, and every copy of one carries the same webhook-id
    const webhookIds = () => {
      const byRef = new Map<string, Set<string>>();
      for (const received of hook.requests) {
        const ref = JSON.parse(received.rawBody).ref as string;
        byRef.set(ref, (byRef.get(ref) ?? new Set()).add(String(received.headers['webhook-id'])));
      }
      return byRef;
    };
    await until('every acknowledged submission’s webhook', () => acknowledged.every((id) => webhookIds().has(refOf.get(id)!)), 30_000, 200);
    const byRef = webhookIds();
    for (const id of acknowledged) {
      const ids = byRef.get(refOf.get(id)!)!;
      assert.equal(ids.size, 1, `${refOf.get(id)} was delivered under one webhook-id, not ${[...ids].join(', ')}`);
    }

    printFigures(`rolling upgrade ${previous.version} → ${VERSION}`, {
      requestsSent: stream.requestsSent,
      submissionsAcknowledged: acknowledged.length,
      submissionsFound: acknowledged.filter((id) => refOf.has(id)).length,
      deliveriesExpected: acknowledged.length,
      delivered: byRef.size,
      duplicated: hook.requests.length - byRef.size,
      more: {
        'acknowledged while both ran': stream.results.filter((r) => r.phase === 'both' && r.status === 200).length,
        'migrations applied by the new release': newMigrations,
      },
    });

    // the counts the old and the new release kept side by side need no repair
    fresh.server.child.kill('SIGTERM');
    assert.equal((await fresh.server.waitForExit()).code, 0, fresh.server.stderr());
    const repair = await cliJson(current.program, ['repair-counts', '--exact']);
    assert.deepEqual(repair.changed, [], `repair-counts found counts to correct: ${JSON.stringify(repair)}`);
  });
});
