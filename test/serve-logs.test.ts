// `formgate serve`'s log as an operator sees it: JSON lines when the output is not a terminal (a
// container's, a unit's), readable lines with FORMGATE_LOG_FORMAT=pretty, the migrations a fresh
// database got, and an unknown variable named with the closest one.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { cliEnv, runCli, spawnServe, type ServerProcess } from './helpers/cli.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from './helpers/database.js';

const LISTEN = { FORMGATE_HOST: '127.0.0.1', FORMGATE_PORT: '0', FORMGATE_SUBMIT_PORT: '0', FORMGATE_SMTP_URL_TLS: 'on' };

describe(`formgate serve's log (${TEST_DIALECT})`, () => {
  const databases: TestDatabase[] = [];
  const servers: ServerProcess[] = [];

  async function start(extra: Record<string, string>): Promise<ServerProcess> {
    const database = await createTestDatabase();
    databases.push(database);
    const server = spawnServe(cliEnv(database, { ...LISTEN, ...extra }));
    servers.push(server);
    return server;
  }

  async function stop(server: ServerProcess): Promise<void> {
    server.child.kill('SIGTERM');
    assert.deepEqual(await server.waitForExit(), { code: 0, signal: null }, server.stderr());
  }

  after(async () => {
    for (const server of servers) server.kill();
    for (const database of databases) await database.drop();
  });

  it('prints JSON lines when stdout is not a terminal, with the migrations applied and an unknown variable named', async () => {
    const server = await start({});
    const ready = await server.waitForLine((line) => /^Formgate is ready/.test(line.json?.msg ?? ''), 'the ready line');
    assert.ok(
      server.lines.every((line) => line.json !== null),
      `every line is JSON: ${server.lines.map((l) => l.raw).join('\n')}`,
    );

    assert.match(ready.json!.files, /^folder \/.+\/files$/, 'where uploaded files go: beside the database by default');
    assert.ok(ready.json!.msg.endsWith(`· files in ${ready.json!.files}`), ready.json!.msg);

    const migrations = server.lines.filter((line) => /^migration \d{4}-[a-z-]+ ran in \d+ ms$/.test(line.json!.msg));
    assert.ok(migrations.length >= 18, `each migration applied to the fresh database: ${migrations.length}`);
    assert.equal(migrations[0]!.json!.msg.split(' ')[1], '0001-initial');
    assert.ok(migrations.every((line) => line.json!.level === 30));
    assert.ok(server.lines.some((line) => /^database schema brought up to date: \d+ migration\(s\) in \d+ ms$/.test(line.json!.msg)));

    const typo = server.lines.find((line) => line.json!.msg.startsWith('FORMGATE_SMTP_URL_TLS'));
    assert.ok(typo, 'the unknown variable is named');
    assert.equal(typo.json!.level, 40);
    assert.match(typo.json!.msg, /did you mean FORMGATE_SMTP_URL\?/);

    const answer = await fetch(`${ready.json!.dashboardUrl}/login`, { redirect: 'manual' });
    await answer.arrayBuffer();
    const request = await server.waitForLine((line) => line.json?.msg === 'request' && line.json.path === '/login', 'the request line');
    assert.deepEqual(
      { method: request.json!.method, status: request.json!.status, ip: request.json!.ip, level: request.json!.level },
      { method: 'GET', status: answer.status, ip: '127.0.0.1', level: 30 },
    );
    assert.equal(typeof request.json!.ms, 'number');
    assert.equal(typeof request.json!.time, 'number', 'epoch milliseconds, for machines');
    await stop(server);
  });

  it('prints one readable line per request with FORMGATE_LOG_FORMAT=pretty', async () => {
    const server = await start({ FORMGATE_LOG_FORMAT: 'pretty' });
    const ready = await server.waitForLine((line) => /INFO {2}Formgate is ready/.test(line.raw), 'the ready line');
    assert.equal(ready.json, null, 'not JSON');
    assert.match(ready.raw, /^\d\d:\d\d:\d\d INFO {2}Formgate is ready/);
    assert.ok(server.lines.some((line) => /^\d\d:\d\d:\d\d INFO {2}migration 0001-initial ran in \d+ ms$/.test(line.raw)));
    assert.ok(server.lines.some((line) => /^\d\d:\d\d:\d\d WARN {2}FORMGATE_SMTP_URL_TLS .* did you mean FORMGATE_SMTP_URL\?$/.test(line.raw)));

    const dashboard = /open (http:\/\/127\.0\.0\.1:\d+)/.exec(ready.raw)![1]!;
    const answer = await fetch(`${dashboard}/login`, { redirect: 'manual' });
    await answer.arrayBuffer();
    const pattern = new RegExp(`^\\d\\d:\\d\\d:\\d\\d INFO {2}GET /login ${answer.status} \\d+(\\.\\d)? ms 127\\.0\\.0\\.1$`);
    const line = await server.waitForLine((l) => pattern.test(l.raw), `a request line like "12:03:04 INFO  GET /login ${answer.status} 3.1 ms 127.0.0.1"`);
    // the local time of day, to the second: within a minute of now
    const [h, m, s] = line.raw.slice(0, 8).split(':').map(Number) as [number, number, number];
    const now = new Date();
    const drift = Math.abs((h * 3600 + m * 60 + s - (now.getHours() * 3600 + now.getMinutes() * 60 + now.getSeconds()) + 86_400) % 86_400);
    assert.ok(drift < 60 || drift > 86_340, `local time: ${line.raw}`);
    await stop(server);
  });

  it('names an unknown variable on stderr for an admin command, leaving --json alone', async () => {
    const database = await createTestDatabase();
    databases.push(database);
    const result = await runCli(cliEnv(database, { FORMGATE_SMTP_URL_TLS: 'on' }), ['migrate', '--json']);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(Object.keys(JSON.parse(result.stdout)), ['database', 'migrated']);
    assert.match(
      result.stderr,
      /formgate: warning: FORMGATE_SMTP_URL_TLS is not a variable Formgate reads, so it has no effect: did you mean FORMGATE_SMTP_URL\?/,
    );
    assert.match(result.stderr, /formgate: migration 0001-initial ran in \d+ ms/);
  });
});
