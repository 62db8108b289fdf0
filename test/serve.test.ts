import { VERSION } from '../src/version.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { buildConfig } from '../src/config/config.js';
import { Database } from '../src/db/database.js';
import { cliEnv, seedUpgradedForm, spawnServe, type LogLine, type ServerProcess } from './helpers/cli.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from './helpers/database.js';

const READY = (line: LogLine) => typeof line.json?.msg === 'string' && line.json.msg.startsWith('Formgate is ready');

/** A request log line: the one line per request that the server prints. */
const requestLine = (predicate: (json: Record<string, any>) => boolean) => (line: LogLine) => line.json?.msg === 'request' && predicate(line.json);

interface Ready {
  baseUrl: string;
  submitUrl: string;
  publicUrl: string;
  msg: string;
}

async function waitUntilReady(server: ServerProcess): Promise<Ready> {
  const line = await server.waitForLine(READY, 'the "Formgate is ready" line');
  const { baseUrl, submitUrl, msg } = line.json!;
  assert.equal(typeof baseUrl, 'string');
  assert.equal(typeof submitUrl, 'string');
  assert.ok(baseUrl.endsWith('/public/v1'), baseUrl);
  return { baseUrl, submitUrl, publicUrl: baseUrl.slice(0, -'/public/v1'.length), msg };
}

/** SIGTERM, then a clean exit (code 0) with 'stopped' logged, within the deadline. */
async function stopGracefully(server: ServerProcess): Promise<void> {
  assert.ok(server.child.kill('SIGTERM'), 'the signal was delivered');
  const exit = await server.waitForExit();
  assert.deepEqual(exit, { code: 0, signal: null }, `exit ${JSON.stringify(exit)}; stderr: ${server.stderr()}`);
  assert.ok(
    server.lines.some((l) => l.json?.msg === 'stopped'),
    'logs "stopped"',
  );
}

describe('formgate serve', () => {
  let database: TestDatabase;
  let env: NodeJS.ProcessEnv;
  let token: string;
  let formId: string;
  const servers: ServerProcess[] = [];

  before(async () => {
    database = await createTestDatabase();
    env = cliEnv(database, {
      FORMGATE_HOST: '127.0.0.1',
      FORMGATE_PORT: '0',
      FORMGATE_SUBMIT_PORT: '0',
      FORMGATE_RATE_LIMIT_API: 'off',
      FORMGATE_RATE_LIMIT_SUBMIT: 'off',
    });
    const seeded = await seedUpgradedForm(database, {
      email: `serve-${process.pid}@example.com`,
      formName: 'Serve test',
      token: { name: 'serve-test', scopes: ['forms:read'] },
    });
    token = seeded.token!;
    formId = seeded.formId;
  });
  after(async () => {
    for (const server of servers) server.kill();
    await Promise.all(servers.map((s) => s.waitForExit(5_000).catch(() => undefined)));
    await database?.drop();
  });

  it('prints its addresses, serves, logs one line per request without secrets, and stops on SIGTERM', async () => {
    const server = spawnServe(env);
    servers.push(server);
    const ready = await waitUntilReady(server);

    assert.match(ready.baseUrl, /^http:\/\/127\.0\.0\.1:\d+\/public\/v1$/);
    assert.match(ready.submitUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(ready.publicUrl, ready.submitUrl, 'the submit surface has its own port');
    assert.ok(!/:0(\/|$)/.test(ready.baseUrl) && !/:0$/.test(ready.submitUrl), 'the real ports are printed, not 0');
    assert.ok(ready.msg.includes(ready.baseUrl), ready.msg);
    assert.ok(ready.msg.includes(ready.submitUrl), ready.msg);

    assert.equal(server.lines.find(READY)?.json?.version, VERSION, 'the ready line names the version');
    assert.ok(ready.msg.includes(VERSION), ready.msg);
    const health = await fetch(`${ready.publicUrl}/healthz`);
    assert.equal(health.status, 200);
    const healthBody = (await health.json()) as { status: string; version: string };
    assert.equal(healthBody.status, 'ok');
    assert.equal(healthBody.version, VERSION);
    const submitHealth = await fetch(`${ready.submitUrl}/healthz`);
    assert.equal(submitHealth.status, 200);
    await submitHealth.arrayBuffer();
    // an address no form has, on the submit surface: its line names the id it was sent
    const submitMissing = await fetch(`${ready.submitUrl}/no-such-form`, { headers: { 'x-request-id': 'serve-submit-404', accept: 'application/json' } });
    assert.equal(submitMissing.status, 404);
    await submitMissing.arrayBuffer();

    const openapi = await fetch(`${ready.baseUrl}/openapi.json`);
    assert.equal(openapi.status, 200);
    const document = (await openapi.json()) as { openapi: string; info: { version: string }; paths: Record<string, unknown> };
    assert.match(document.openapi, /^3\.1\./);
    assert.equal(document.info.version, VERSION);
    assert.ok(Object.keys(document.paths).length > 0);

    const me = await fetch(`${ready.baseUrl}/me?probe=${encodeURIComponent(token)}`, {
      headers: { authorization: `Bearer ${token}`, 'x-request-id': 'serve-test-me' },
    });
    assert.equal(me.status, 200, await me.clone().text());
    assert.equal(me.headers.get('x-request-id'), 'serve-test-me');
    assert.equal(((await me.json()) as { name: string }).name, 'serve-test');
    const wrongToken = `${token.slice(0, -4)}AAAA`;
    const refused = await fetch(`${ready.baseUrl}/me`, { headers: { authorization: `Bearer ${wrongToken}`, 'x-request-id': 'serve-test-401' } });
    assert.equal(refused.status, 401);
    await refused.arrayBuffer();

    const meLine = await server.waitForLine(
      requestLine((j) => j.reqId === 'serve-test-me'),
      'the request line of GET /me',
    );
    assert.equal(meLine.json!.method, 'GET');
    assert.equal(meLine.json!.path, '/public/v1/me', 'the path, without the query');
    assert.equal(meLine.json!.status, 200);
    const refusedLine = await server.waitForLine(
      requestLine((j) => j.reqId === 'serve-test-401'),
      'the request line of the 401',
    );
    assert.equal(refusedLine.json!.status, 401);
    const openapiLine = await server.waitForLine(
      requestLine((j) => j.path === '/public/v1/openapi.json'),
      'the request line of GET /public/v1/openapi.json',
    );
    assert.equal(openapiLine.json!.method, 'GET');
    assert.equal(openapiLine.json!.status, 200);
    assert.match(String(openapiLine.json!.reqId), /^[0-9a-f-]{36}$/, 'a request without X-Request-Id gets a generated id');
    await server.waitForLine(
      requestLine((j) => j.reqId === 'serve-submit-404' && j.path === '/no-such-form' && j.status === 404),
      'the submit surface request line',
    );
    // asked before the lines above were written: a successful probe is a debug line, not shown at info
    assert.ok(!server.lines.some((line) => line.json?.path === '/healthz'), 'no info line for /healthz');

    await stopGracefully(server);
    assert.ok(server.lines.length > 0);
    for (const line of server.lines) {
      assert.ok(line.json, `every stdout line is a JSON log line: ${line.raw}`);
      assert.ok(!line.raw.includes(token), `a log line carries the bearer token: ${line.raw}`);
      assert.ok(!line.raw.includes(token.slice(3)), `a log line carries the token's secret part: ${line.raw}`);
      assert.ok(!line.raw.includes(wrongToken), `a log line carries the refused bearer token: ${line.raw}`);
      assert.ok(line.json.level < 50, `no error was logged: ${line.raw}`);
    }
    assert.ok(!server.stderr().includes(token), 'nor does stderr');
  });

  it('moves what visitors submit into the search index in the background', {
    skip: TEST_DIALECT !== 'sqlite' && 'SQLite only: PostgreSQL indexes in the insert',
  }, async () => {
    const server = spawnServe(env);
    servers.push(server);
    const ready = await waitUntilReady(server);
    const posted = await fetch(`${ready.submitUrl}/${formId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: 'message=vermilion+shutters',
    });
    assert.equal(posted.status, 200, await posted.clone().text());
    await posted.arrayBuffer();

    const opened = Database.open(buildConfig({ databaseUrl: database.url, dataDir: database.dataDir }).database);
    try {
      const raw = opened.db.withoutPlugins();
      const indexed = async () =>
        // contentless since 0017-search-scope: the index answers MATCH, it keeps no text to GLOB
        (await sql<{ rowid: number }>`SELECT rowid FROM submissions_search WHERE submissions_search MATCH 'search_text : "vermilion"'`.execute(raw)).rows
          .length;
      const deadline = Date.now() + 10_000;
      while ((await indexed()) === 0 && Date.now() < deadline) await sleep(50);
      assert.equal(await indexed(), 1, 'indexed within 10 s of its answer');
      const backlog = await sql<{ n: number }>`SELECT count(*) AS n FROM search_backlog`.execute(raw);
      assert.equal(backlog.rows[0]!.n, 0, 'and out of the backlog');
    } finally {
      await opened.destroy();
    }
    await stopGracefully(server);
  });

  it('migrates an empty database on first start and reuses it on the next', async () => {
    const fresh = await createTestDatabase();
    try {
      const freshEnv = { ...env, FORMGATE_DATABASE_URL: fresh.url, FORMGATE_DATA_DIR: fresh.dataDir };
      let firstSecret: string | undefined;
      let migrationsApplied: string[] | undefined;
      for (const round of [1, 2]) {
        const server = spawnServe(freshEnv);
        servers.push(server);
        const ready = await waitUntilReady(server);
        const health = await fetch(`${ready.publicUrl}/healthz`);
        assert.equal(health.status, 200, `round ${round}`);
        await health.arrayBuffer();
        // an API route that reads the database answers as it should (no token: 401, not a 500)
        const me = await fetch(`${ready.baseUrl}/me`, { headers: { authorization: 'Bearer fg_unknown' } });
        assert.equal(me.status, 401, `round ${round}`);
        await me.arrayBuffer();
        await stopGracefully(server);
        assert.equal(server.stderr(), '', `round ${round}: nothing on stderr`);
        assert.ok(!server.lines.some((l) => (l.json?.level ?? 0) >= 50), `round ${round}: no error logged`);

        const database = Database.open(buildConfig({ databaseUrl: fresh.url, dataDir: fresh.dataDir }).database);
        try {
          const rows = await database.db
            .withoutPlugins()
            .selectFrom('kysely_migration' as any)
            .select('name' as any)
            .orderBy('name' as any)
            .execute();
          const names = rows.map((r: any) => r.name as string);
          assert.equal(names[0], '0001-initial', `round ${round}: the first start migrated the empty database`);
          assert.equal(new Set(names).size, names.length, `round ${round}: each migration applied once`);
          // the second start applies nothing new
          migrationsApplied ??= names;
          assert.deepEqual(names, migrationsApplied, `round ${round}: the same migrations`);
          const secrets = await database.db.selectFrom('settings').select('value').where('key', '=', 'secret').execute();
          assert.equal(secrets.length, 1);
          // the installation secret made on the first start is kept, not regenerated
          firstSecret ??= secrets[0]!.value;
          assert.equal(secrets[0]!.value, firstSecret, `round ${round}: the same installation secret`);
        } finally {
          await database.destroy();
        }
      }
    } finally {
      await fresh.drop();
    }
  });
});
