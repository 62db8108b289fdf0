// A client that hangs up mid-body on the API or the dashboard: an info line `client_aborted`, not an
// error line about a database that cannot write (Node.js reports the cut as ECONNRESET, one of the
// codes of a lost database connection; issue 38, item 23, the sibling of the submit surface's case).
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';
import { createAccount } from '../helpers/fixtures.js';
import { collectingLogger } from '../helpers/log-lines.js';

describe(`a request body the client cuts short (${TEST_DIALECT})`, () => {
  let app: TestApp;
  const log = collectingLogger('debug');
  before(async () => {
    app = await startApp({}, { logger: log.logger });
  });
  after(() => app.close());

  /** Sends a request's head (with Expect: 100-continue), waits until the server takes it, sends half its body and hangs up. */
  async function hangUp(url: string, headers: Record<string, string>, body: string): Promise<void> {
    const target = new URL(url);
    const socket = net.connect(Number(target.port), target.hostname);
    await new Promise((resolve) => socket.once('connect', resolve));
    const head = Object.entries({ ...headers, host: target.host, expect: '100-continue', 'content-length': String(body.length) })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(`POST ${target.pathname} HTTP/1.1\r\n${head}\r\n`);
    // Node.js answers 100 Continue once the request is handed to the server: its body is then awaited
    await new Promise<void>((resolve) => socket.on('data', (chunk) => /^HTTP\/1\.1 100 /.test(String(chunk)) && resolve()));
    socket.write(body.slice(0, body.length / 2));
    socket.destroy();
  }

  it('logs info client_aborted on the API and the dashboard, and no error', async () => {
    const account = await createAccount(app);
    const body = JSON.stringify({ workspaceId: account.workspaceId, name: 'x'.repeat(4000) });
    await hangUp(`${app.baseUrl}/forms`, { authorization: `Bearer ${account.token}`, 'content-type': 'application/json', 'x-request-id': 'cut-api' }, body);
    await hangUp(
      `${app.publicUrl}/login`,
      { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', 'x-request-id': 'cut-dashboard' },
      `email=a%40example.com&password=${'p'.repeat(4000)}`,
    );
    const dashboard = await eventually(async () => log.lines.find((l) => l.reqId === 'cut-dashboard' && l.reason === 'client_aborted'), 'the dashboard line');
    assert.equal(dashboard.level, 30);
    // NOTE: where the API authenticates the token on the database before reading the body (PostgreSQL:
    // a round trip), the body's reading starts after the cut and no error comes at all; otherwise it is this line
    for (const line of log.lines.filter((l) => l.reqId === 'cut-api')) assert.deepEqual([line.level, line.reason], [30, 'client_aborted']);
    assert.deepEqual(
      log.lines.filter((line) => line.level >= 50),
      [],
      'nothing at error',
    );
  });
});
