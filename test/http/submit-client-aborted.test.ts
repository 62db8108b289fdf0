// A visitor who hangs up mid-post: nothing is stored, the line is info `client_aborted`, and it is
// counted as aborted, not as the database failing (issue 38, item 23: it was logged at error as
// "the database cannot take writes" and counted as storage_unavailable).
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';
import { createAccount, createForm } from '../helpers/fixtures.js';
import { collectingLogger } from '../helpers/log-lines.js';

describe(`a post the visitor cuts short (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let formId: string;
  const log = collectingLogger('debug');
  before(async () => {
    app = await startApp({ metrics: 'on' }, { logger: log.logger });
    formId = (await createForm(app, await createAccount(app), { name: 'Cut short' })).id;
  });
  after(() => app.close());

  /** Sends the headers and half the body of a post of `type`, then closes the connection. */
  async function hangUp(type: string, body: string, id: string): Promise<void> {
    const submit = new URL(app.submitUrl);
    const socket = net.connect(Number(submit.port), submit.hostname);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST /${formId} HTTP/1.1\r\nHost: ${submit.host}\r\nAccept: application/json\r\nX-Request-Id: ${id}\r\nContent-Type: ${type}\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, body.length / 2)}`,
    );
    // the visitor goes once the server is handling the post (reading its body)
    await eventually(async () => app.ctx.visitors.visitors === 1, 'the post to be under way');
    socket.destroy();
    await eventually(async () => app.ctx.visitors.visitors === 0, 'the post to end');
  }

  it('logs info client_aborted, counts it apart and stores nothing, for urlencoded and JSON bodies', async () => {
    await hangUp('application/x-www-form-urlencoded', `message=${'a'.repeat(2000)}`, 'cut-urlencoded');
    await hangUp('application/json', JSON.stringify({ message: 'b'.repeat(2000) }), 'cut-json');
    for (const id of ['cut-urlencoded', 'cut-json']) {
      await eventually(async () => log.lines.some((line) => line.reqId === id && line.reason === 'client_aborted'), `the line of ${id}`);
      const line = log.lines.find((l) => l.reqId === id && l.reason === 'client_aborted')!;
      assert.equal(line.level, 30, JSON.stringify(line));
    }
    assert.deepEqual(
      log.lines.filter((line) => line.level >= 50),
      [],
      'nothing at error',
    );
    const metrics = await app.ctx.metrics!.registry.metrics();
    assert.match(metrics, /^formgate_submissions_total\{outcome="aborted",reason=""\} 2$/m);
    assert.doesNotMatch(metrics, /reason="storage_unavailable"/);
    assert.equal((await app.ctx.database.db.selectFrom('submissions').select('id').execute()).length, 0);
  });
});
