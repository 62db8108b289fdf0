// Issue 38, item 7: caps on each surface's connections (per client address, in all), a timeout for
// a new connection that sends no request, a warning at most once a minute, and a counter. Real
// sockets on loopback, with the caps set low; every wait is on an event, with a deadline.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { collectingLogger } from '../helpers/log-lines.js';
import { request } from '../helpers/submit.js';

const DEADLINE_MS = 10_000;

interface Connection {
  socket: net.Socket;
  /** Resolves when the server closed the connection (or it failed), with what it had sent. */
  closed: Promise<string>;
}

/** A connection from `localAddress` (any 127.x.y.z is this machine) to the URL's port, once connected. */
async function connect(url: string, localAddress = '127.0.0.1'): Promise<Connection> {
  const { hostname, port } = new URL(url);
  const socket = net.connect({ host: hostname, port: Number(port), localAddress });
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(received)));
  socket.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return { socket, closed };
}

/** Sends a keep-alive GET /healthz on the connection and resolves with the status line of its answer. */
function ask(connection: Connection): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      if (!text.includes('\r\n\r\n')) return;
      connection.socket.off('data', onData);
      resolve(text.split('\r\n')[0]!);
    };
    connection.socket.on('data', onData);
    connection.socket.once('close', () => reject(new Error(`closed before an answer: ${JSON.stringify(text)}`)));
    connection.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  });
}

async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${DEADLINE_MS} ms`)), DEADLINE_MS);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

describe('connection caps and the first-request timeout (issue 38, item 7)', () => {
  const apps: TestApp[] = [];
  const sockets: net.Socket[] = [];
  after(async () => {
    for (const socket of sockets) socket.destroy();
    for (const app of apps) await app.close();
  });
  const open = async (url: string, localAddress?: string) => {
    const connection = await connect(url, localAddress);
    sockets.push(connection.socket);
    return connection;
  };

  /** The first answer on a new connection from `localAddress`: the server learns of a closed connection a moment after the client (at most 50 tries). */
  const servedFrom = async (url: string, localAddress: string) => {
    for (let attempt = 0; attempt < 50; attempt++) {
      const answer = await ask(await open(url, localAddress)).catch(() => null);
      if (answer) return answer;
    }
    throw new Error(`no connection from ${localAddress} was served in 50 tries`);
  };

  it('refuses one address past its cap on both surfaces, logs it once, counts it, and serves everyone else', async () => {
    const { logger, lines } = collectingLogger('warn');
    const app = await startApp({ maxConnectionsPerAddress: '4', metrics: 'on', firstRequestTimeout: '120s' }, { logger });
    apps.push(app);
    for (const url of [app.submitUrl, app.publicUrl]) {
      const held = await Promise.all(Array.from({ length: 4 }, () => open(url, '127.0.0.9')));
      for (const connection of held) assert.match(await within(ask(connection), 'an answer'), /^HTTP\/1\.1 200/);
      // three more from the same address: each closed at once, before any answer
      for (let extra = 0; extra < 3; extra++) {
        const refused = await open(url, '127.0.0.9');
        refused.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
        assert.equal(await within(refused.closed, 'the refused connection to close'), '');
      }
      // another address is served meanwhile, and the capped one again once one of its connections closes
      assert.match(await within(ask(await open(url, '127.0.0.10')), 'another address'), /^HTTP\/1\.1 200/);
      held[0]!.socket.destroy();
      await held[0]!.closed;
      const again = await within(servedFrom(url, '127.0.0.9'), 'a connection after one closed');
      assert.match(again, /^HTTP\/1\.1 200/);
      for (const connection of held) connection.socket.destroy();
    }
    const warnings = lines.filter((line) => line.reason === 'per_address');
    assert.deepEqual(
      warnings.map((line) => [line.level, line.surface, line.cap, line.ip]),
      [
        [40, 'submit', 4, '127.0.0.9'],
        [40, 'api', 4, '127.0.0.9'],
      ],
      'one warning per surface, not one per refused connection',
    );
    const metrics = String((await request('GET', `${app.publicUrl}/metrics`, null, {}, '127.0.0.11')).body);
    for (const surface of ['submit', 'api']) {
      const counted = new RegExp(`formgate_connections_refused_total\\{surface="${surface}",reason="per_address"\\} (\\d+)`).exec(metrics);
      // the three refused, and any made while the closed connection was not yet counted out
      assert.ok(
        counted && Number(counted[1]) >= 3,
        metrics
          .split('\n')
          .filter((line) => line.includes('connections'))
          .join('\n'),
      );
    }
  });

  it('never caps a trusted proxy’s own address: it carries every visitor', async () => {
    const app = await startApp({ maxConnectionsPerAddress: '2', trustProxy: 'loopback', firstRequestTimeout: '120s' });
    apps.push(app);
    const proxied = await Promise.all(Array.from({ length: 6 }, () => open(app.submitUrl, '127.0.0.12')));
    for (const connection of proxied) assert.match(await within(ask(connection), 'an answer through the proxy'), /^HTTP\/1\.1 200/);
  });

  it('refuses past the total cap, and serves again once a connection closes', async () => {
    const app = await startApp({ maxConnections: '5', maxConnectionsPerAddress: '0', firstRequestTimeout: '120s' });
    apps.push(app);
    const held = await Promise.all(Array.from({ length: 5 }, (_, n) => open(app.submitUrl, `127.0.1.${n + 1}`)));
    for (const connection of held) assert.match(await within(ask(connection), 'an answer'), /^HTTP\/1\.1 200/);
    const refused = await open(app.submitUrl, '127.0.1.9');
    assert.equal(await within(refused.closed, 'the sixth connection to close'), '');
    held[0]!.socket.destroy();
    await held[0]!.closed;
    const answer = await within(servedFrom(app.submitUrl, '127.0.1.10'), 'a connection once one closed');
    assert.match(answer, /^HTTP\/1\.1 200/);
  });

  it('closes a new connection that sends no request in time, and keeps one that did', async () => {
    const app = await startApp({ firstRequestTimeout: '300ms', metrics: 'on' });
    apps.push(app);
    const used = await open(app.submitUrl);
    assert.match(await within(ask(used), 'an answer'), /^HTTP\/1\.1 200/);
    const idle = await open(app.submitUrl);
    assert.equal(await within(idle.closed, 'the idle connection to close'), '');
    // the connection that sent a request is kept alive past the idle one's end (keepAliveTimeout governs it)
    assert.equal(used.socket.destroyed, false);
    assert.match(await within(ask(used), 'a second answer on the kept connection'), /^HTTP\/1\.1 200/);
    const metrics = await request('GET', `${app.publicUrl}/metrics`, null, {});
    assert.match(metrics.body, /formgate_connections_closed_idle_total\{surface="submit"\} 1\b/);
  });
});
