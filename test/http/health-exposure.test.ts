// Issue 38, item 15: /healthz tells strangers the status and each check's state, never the data
// paths, the S3 endpoint, the version or error text; the operator (loopback, or the metrics token)
// reads every detail. "Loopback" is the client after trusted proxies, never the proxy itself.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { VERSION } from '../../src/version.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { request } from '../helpers/submit.js';

const TOKEN = 'health-and-metrics-token-0123456789';

/** `/healthz` on both ports with these headers (a Host of another site among them), as one answer: both must agree. */
async function healthOn(app: TestApp, headers: Record<string, string>) {
  const [api, submit] = await Promise.all([
    request('GET', `${app.publicUrl}/healthz`, null, { host: 'attacker.example', ...headers }),
    request('GET', `${app.submitUrl}/healthz`, null, { host: 'attacker.example', ...headers }),
  ]);
  assert.equal(api.status, 200, JSON.stringify(api.body));
  assert.equal(submit.status, 200, JSON.stringify(submit.body));
  assert.deepEqual(Object.keys(api.body).sort(), Object.keys(submit.body).sort());
  return [api.body, submit.body] as const;
}

function assertPublic(body: Record<string, unknown>, folder: string) {
  assert.deepEqual(Object.keys(body).sort(), ['checks', 'status']);
  assert.equal(body.status, 'ok');
  const checks = body.checks as Record<string, Record<string, unknown>>;
  assert.deepEqual(Object.keys(checks).sort(), ['database', 'deliveries', 'files', 'smtp']);
  for (const [name, check] of Object.entries(checks)) assert.deepEqual(Object.keys(check), ['status'], `${name}: ${JSON.stringify(check)}`);
  const text = JSON.stringify(body);
  assert.ok(!text.includes(folder), 'no data path');
  assert.ok(!text.includes(VERSION), 'no version');
}

describe('/healthz details only for the operator (issue 38, item 15)', () => {
  describe('behind a trusted proxy, with a metrics token', () => {
    let app: TestApp;
    let folder: string;
    before(async () => {
      app = await startApp({ trustProxy: 'true', metrics: TOKEN });
      folder = (app.ctx.config.files as { folder: string }).folder;
    });
    after(() => app?.close());

    it('answers a visitor (any Host, either port) the status and each check’s state only', async () => {
      // nginx appends the address it saw to what the visitor sent: the visitor cannot make itself loopback
      for (const forwarded of ['198.51.100.7', '127.0.0.1, 198.51.100.7']) {
        for (const body of await healthOn(app, { 'x-forwarded-for': forwarded })) assertPublic(body, folder);
      }
      // a wrong token is a stranger too
      for (const body of await healthOn(app, { 'x-forwarded-for': '198.51.100.7', authorization: 'Bearer wrong' })) assertPublic(body, folder);
    });

    it('answers every detail with the metrics token, or to a loopback client behind the proxy', async () => {
      const operators: Record<string, string>[] = [{ 'x-forwarded-for': '198.51.100.7', authorization: `Bearer ${TOKEN}` }, { 'x-forwarded-for': '127.0.0.1' }];
      for (const headers of operators) {
        for (const body of await healthOn(app, headers)) {
          assert.equal(body.version, VERSION);
          assert.equal(body.checks.files.where, `folder ${folder}`);
          assert.equal(body.checks.database.reads, 'ok');
        }
      }
    });
  });

  describe('with no proxy trusted', () => {
    let app: TestApp;
    let folder: string;
    before(async () => {
      app = await startApp();
      folder = (app.ctx.config.files as { folder: string }).folder;
    });
    after(() => app?.close());

    it('gives a loopback client the details, but not a request a proxy on this machine forwarded', async () => {
      for (const body of await healthOn(app, {})) assert.equal(body.checks.files.where, `folder ${folder}`);
      const forwardedBy: Record<string, string>[] = [{ 'x-forwarded-for': '198.51.100.7' }, { forwarded: 'for=198.51.100.7' }, { 'x-real-ip': '198.51.100.7' }];
      for (const headers of forwardedBy) {
        for (const body of await healthOn(app, headers)) assertPublic(body, folder);
      }
    });
  });
});
