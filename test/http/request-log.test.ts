// Request lines: /healthz and /metrics, asked every few seconds by health checks and scrapers, are
// logged at debug when they succeed and at info when they fail, like every other request (issue 38,
// item 23: an idle instance wrote 36 info lines a minute).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';
import { collectingLogger } from '../helpers/log-lines.js';

const TOKEN = 'metrics-token-for-request-log';

describe(`request lines of probes (${TEST_DIALECT})`, () => {
  let app: TestApp;
  const log = collectingLogger('debug');
  before(async () => {
    app = await startApp({ metrics: TOKEN }, { logger: log.logger });
  });
  after(() => app.close());

  const lineOf = (id: string) => log.lines.find((line) => line.msg === 'request' && line.reqId === id);
  async function ask(url: string, id: string, headers: Record<string, string> = {}): Promise<Record<string, any>> {
    const answer = await fetch(url, { headers: { 'x-request-id': id, ...headers } });
    await answer.arrayBuffer();
    await eventually(async () => lineOf(id) !== undefined, `the request line of ${id}`);
    return lineOf(id)!;
  }

  it('logs a successful /healthz (both surfaces) and /metrics at debug', async () => {
    const api = new URL(app.baseUrl).origin;
    for (const [url, id, headers] of [
      [`${api}/healthz`, 'probe-api-health', {}],
      [`${app.submitUrl}/healthz`, 'probe-submit-health', {}],
      [`${api}/metrics`, 'probe-metrics', { authorization: `Bearer ${TOKEN}` }],
    ] as const) {
      const line = await ask(url, id, headers);
      assert.deepEqual({ level: line.level, status: line.status }, { level: 20, status: 200 }, url);
    }
  });

  it('logs a probe that fails, and any other request, at info', async () => {
    const api = new URL(app.baseUrl).origin;
    const refused = await ask(`${api}/metrics`, 'probe-metrics-refused', { authorization: 'Bearer wrong-token-wrong-token' });
    assert.deepEqual({ level: refused.level, status: refused.status }, { level: 30, status: 401 });
    const other = await ask(`${app.baseUrl}/openapi.json`, 'not-a-probe');
    assert.deepEqual({ level: other.level, status: other.status, path: other.path }, { level: 30, status: 200, path: '/public/v1/openapi.json' });
  });
});
