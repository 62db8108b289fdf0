import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { buildConfig } from '../../src/config/config.js';
import { openContext, type AppContext } from '../../src/context.js';
import { checkAcknowledged } from '../helpers/acknowledged.js';
import { cliEnv, MANY_VISITORS_FROM_ONE_ADDRESS, spawnServe, type LogLine, type ServerProcess } from '../helpers/cli.js';
import { createTestDatabase, TEST_DIALECT, TEST_PG_URL, type TestDatabase } from '../helpers/database.js';
import { until } from '../helpers/eventually.js';
import { printFigures } from '../helpers/figures.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { JSON_ACCEPT, request } from '../helpers/submit.js';
import { SubmissionStream } from '../helpers/submission-stream.js';

// `formgate serve` on PostgreSQL while its own database connections are killed from the server's
// side, again and again (pg_terminate_backend, as an administrator, a failover or a restart does),
// under a steady stream of submissions and deliveries. Every answer must be a success or an honest
// 503 (never a 500, never a hang), the pool must reconnect, the process must never exit, and every
// acknowledged submission must be stored once and delivered.

const READY = (line: LogLine) => typeof line.json?.msg === 'string' && line.json.msg.startsWith('Formgate is ready');
// the server's connections say who they are, so that only they are killed (never the test's own)
const APPLICATION = 'formgate-under-fault';
const KILL_ROUNDS = 16;

describe('PostgreSQL connections killed under load', {
  skip: TEST_DIALECT !== 'postgres' && 'PostgreSQL only: kills the server’s database connections',
}, () => {
  let database: TestDatabase;
  let databaseName = '';
  let ctx: AppContext;
  let sink: SmtpSink;
  let server: ServerProcess;
  let admin: pg.Client;
  let stream: SubmissionStream;
  let formId = '';
  let workspaceId = '';
  let token = '';
  let baseUrl = '';
  let killed = 0;
  let apiRequests = 0;
  const badApiAnswers: string[] = [];
  const started = Date.now();

  before(async () => {
    database = await createTestDatabase();
    databaseName = new URL(database.url).pathname.slice(1);
    sink = await startSmtpSink();
    ctx = await openContext(buildConfig({ databaseUrl: database.url, dataDir: database.dataDir, confirmRecipients: 'off' }));
    const { user, workspace } = await ctx.users.createUser(`pg-kill-${process.pid}@example.com`);
    workspaceId = workspace.id;
    await ctx.workspaces.setPlan(workspace.id, 'BUNDLE_50000', { tellOwners: false });
    ({ id: formId } = await ctx.forms.createForm(user.id, workspace.id, { name: 'Killed connections', notificationEmails: ['owner@example.com'] }));
    ({ secret: token } = await ctx.tokens.createToken(user.id, { name: 'pg-kill', scopes: ['forms:read', 'forms:write'] }));
    admin = new pg.Client({ connectionString: TEST_PG_URL });
    await admin.connect();
    const url = new URL(database.url);
    url.searchParams.set('application_name', APPLICATION);
    server = spawnServe(
      cliEnv(database, {
        FORMGATE_DATABASE_URL: url.toString(),
        FORMGATE_HOST: '127.0.0.1',
        FORMGATE_PORT: '0',
        FORMGATE_SUBMIT_PORT: '0',
        ...MANY_VISITORS_FROM_ONE_ADDRESS,
        FORMGATE_SMTP_URL: sink.url,
      }),
    );
    let submitUrl: string;
    ({ submitUrl, baseUrl } = (await server.waitForLine(READY, 'the ready line', 30_000)).json!);
    stream = new SubmissionStream({ submitUrl, formId, concurrency: 4, gapMs: 10, maxRequests: 6_000, maxMs: 70_000 });
    stream.start();
    await stream.waitFor('acknowledged', 20);
  });

  after(async () => {
    if (process.env.FORMGATE_TEST_KEEP_LOG)
      (await import('node:fs')).writeFileSync(process.env.FORMGATE_TEST_KEEP_LOG, server?.lines.map((l) => l.raw).join('\n') ?? '');
    await stream?.stop();
    if (server) {
      server.child.kill('SIGTERM');
      await server.waitForExit().catch(() => server.kill());
    }
    await admin?.end().catch(() => undefined);
    await ctx?.close();
    await sink?.close();
    await database?.drop();
  });

  /** Terminates every connection of the server to the test's database (never another database's, never the test's own). */
  async function killServerConnections(): Promise<number> {
    const { rowCount } = await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = $2 AND pid <> pg_backend_pid()',
      [databaseName, APPLICATION],
    );
    return rowCount ?? 0;
  }

  /** A management API write during the kills: created, or refused with an honest 503. */
  async function createFormThroughApi(name: string): Promise<number> {
    apiRequests++;
    const answer = await request('POST', `${baseUrl}/forms`, JSON.stringify({ workspaceId, name }), {
      authorization: `Bearer ${token}`,
      accept: JSON_ACCEPT,
      'content-type': 'application/json',
    });
    const honest = answer.status === 503 && answer.body?.code === 'storage_unavailable' && Number(answer.headers.get('retry-after')) > 0;
    if (answer.status !== 201 && !honest) badApiAnswers.push(`${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.status;
  }

  it('answers every submission with a success or an honest 503 while its connections are killed again and again, and reconnects', async () => {
    for (let round = 0; round < KILL_ROUNDS; round++) {
      const before = stream.acknowledged.length;
      const killedAt = Date.now();
      killed += await killServerConnections();
      await createFormThroughApi(`made in kill round ${round}`);
      // the stream goes on between kills: the pool must have reconnected for anything to be acknowledged
      await until(
        `submissions acknowledged after kill round ${round}`,
        () => stream.acknowledged.length >= before + 5 && Date.now() - killedAt >= 250,
        15_000,
        20,
      );
    }
    assert.ok(killed >= KILL_ROUNDS, `only ${killed} connections were killed`);
    await stream.waitFor('acknowledged', 20, 30_000);
    assert.equal(await createFormThroughApi('made after the kills'), 201);
    assert.equal(server.child.exitCode, null, `the server exited: ${server.stderr()}`);
    assert.deepEqual(stream.bad, [], 'no answer but a success or an honest 503');
    assert.deepEqual(badApiAnswers, [], 'the API answered only 201 or an honest 503');
    const uncaught = server.lines.filter((line) => /^uncaught exception|^unhandled promise rejection/.test(line.json?.msg ?? ''));
    assert.deepEqual(
      uncaught.map((line) => line.raw.slice(0, 300)),
      [],
      'every connection error is handled where it happens',
    );
  });

  it('keeps every acknowledged submission once and delivers each', async () => {
    await stream.stop();
    const figures = await checkAcknowledged(ctx.database, formId, stream, sink);
    assert.equal(server.child.exitCode, null, 'the server is still running');
    printFigures('postgres-connections', {
      requestsSent: stream.sent + apiRequests,
      faultsInjected: killed,
      // acknowledged, found, expected, delivered, duplicated: as checkAcknowledged counted them
      ...figures,
      more: {
        'kill rounds': KILL_ROUNDS,
        'refused with 503': stream.refused.length,
        'refused yet stored (commit answered by a killed connection)': figures.refusedYetStored,
        '5xx other than 503': stream.bad.length + badApiAnswers.length,
        'wall time (s)': Math.round((Date.now() - started) / 100) / 10,
      },
    });
  });
});
