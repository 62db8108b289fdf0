// A container often starts before its database: `formgate serve` waits for a PostgreSQL that does
// not answer yet (FORMGATE_STARTUP_WAIT), saying so, and with the wait at 0 fails at once.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, describe, it } from 'node:test';
import { cliEnv, spawnServe, type ServerProcess } from './helpers/cli.js';
import { createTestDatabase, TEST_DIALECT, TEST_PG_URL, type TestDatabase } from './helpers/database.js';
import { freePort } from './helpers/private-redis.js';

const LISTEN = { FORMGATE_HOST: '127.0.0.1', FORMGATE_PORT: '0', FORMGATE_SUBMIT_PORT: '0' };

/** A TCP proxy on `port` to the real PostgreSQL: the database "coming up" at that address. */
function startProxy(port: number): Promise<net.Server> {
  const target = new URL(TEST_PG_URL);
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  return new Promise((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', () => resolve(server)));
}

/** The database's URL with its address moved to 127.0.0.1:`port`. */
function atPort(url: string, port: number): string {
  const moved = new URL(url);
  moved.hostname = '127.0.0.1';
  moved.port = String(port);
  return moved.toString();
}

describe('formgate serve: PostgreSQL not reachable yet at start', { skip: TEST_DIALECT !== 'postgres' && 'needs PostgreSQL' }, () => {
  let database: TestDatabase;
  const servers: ServerProcess[] = [];
  const proxies: net.Server[] = [];

  after(async () => {
    for (const server of servers) server.kill();
    for (const proxy of proxies) proxy.close();
    await database?.drop();
  });

  it('retries, saying what it waits for and how long is left, and is ready once the database answers', async () => {
    database = await createTestDatabase();
    const port = await freePort();
    const server = spawnServe(cliEnv(database, { ...LISTEN, FORMGATE_DATABASE_URL: atPort(database.url, port), FORMGATE_STARTUP_WAIT: '60s' }));
    servers.push(server);
    const waiting = await server.waitForLine((line) => /^waiting for PostgreSQL/.test(line.json?.msg ?? ''), 'the first "waiting for PostgreSQL" line');
    assert.match(
      waiting.json!.msg,
      new RegExp(`^waiting for PostgreSQL at postgres://[^ ]*127\\.0\\.0\\.1:${port}/[^ ]+ \\(.*ECONNREFUSED.*\\): attempt 1, next in 0\\.5 s, (59|60) s left`),
    );
    assert.equal(waiting.json!.level, 30);
    // the database comes up once the server has said it waits: its next attempt gets through
    proxies.push(await startProxy(port));
    await server.waitForLine((line) => /^Formgate is ready/.test(line.json?.msg ?? ''), 'the ready line', 30_000);
    assert.ok(server.lines.some((line) => /^PostgreSQL at .* answers$/.test(line.json?.msg ?? '')));
    server.child.kill('SIGTERM');
    assert.deepEqual(await server.waitForExit(), { code: 0, signal: null }, server.stderr());
  });

  it('with FORMGATE_STARTUP_WAIT=0 fails at once, naming the database', async () => {
    const port = await freePort();
    const server = spawnServe(cliEnv(database, { ...LISTEN, FORMGATE_DATABASE_URL: atPort(database.url, port), FORMGATE_STARTUP_WAIT: '0' }));
    servers.push(server);
    const exit = await server.waitForExit();
    assert.equal(exit.code, 1, server.stderr());
    assert.ok(!server.lines.some((line) => /^waiting for/.test(line.json?.msg ?? '')), 'no wait');
    // the logs are JSON (stdout is not a terminal), so is the reason it stopped
    const fatal = server.lines.at(-1)?.json;
    assert.equal(fatal?.level, 60, server.lines.map((l) => l.raw).join('\n'));
    assert.match(fatal.msg, new RegExp(`^cannot reach PostgreSQL at postgres://[^ ]*127\\.0\\.0\\.1:${port}/[^ ]+: .*ECONNREFUSED`));
    assert.equal(server.stderr(), '');
  });
});
