import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import fs from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import type { Surfaces } from '../../src/app.js';
import { listen } from '../../src/cli/serve.js';
import { openContext, type AppContext } from '../../src/context.js';
import { type TestApp, testConfig } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { until } from '../helpers/eventually.js';
import { createAccount } from '../helpers/fixtures.js';
import { request } from '../helpers/submit.js';

// The nginx configuration of docs/configuration.md ("Reverse proxy"), as written there, run for real
// in front of `formgate` with the environment the page gives, on loopback ports instead of 443.
const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((file) => fs.existsSync(file));
const DOCS = fs.readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

/** The documented server blocks, listening on `port` without TLS and proxying to the given ports. */
function documentedConfig(port: number, apiPort: number, submitPort: number): string {
  const block = /```nginx\n([\s\S]*?)```/.exec(DOCS)?.[1];
  assert.ok(block, 'docs/configuration.md has an nginx example');
  return block
    .replaceAll('listen 443 ssl;', `listen 127.0.0.1:${port};`)
    .replace(/^\s*ssl_certificate(_key)?\s.*$/gm, '')
    .replaceAll('http://127.0.0.1:8080', `http://127.0.0.1:${apiPort}`)
    .replaceAll('http://127.0.0.1:8081', `http://127.0.0.1:${submitPort}`);
}

const visitor = () => `127.${randomInt(1, 255)}.${randomInt(1, 255)}.${randomInt(2, 255)}`;

describe('behind the documented nginx configuration', { skip: !NGINX && 'SKIPPED: nginx is not installed (apt-get install nginx)' }, () => {
  let database: TestDatabase;
  let ctx: AppContext;
  let surfaces: Surfaces;
  let nginx: ChildProcess;
  let nginxPort: number;
  let folder: string;
  const lines: Record<string, unknown>[] = [];

  before(async () => {
    database = await createTestDatabase();
    ctx = await openContext(
      testConfig(database, {
        publicUrl: 'https://forms.example.com',
        submitUrl: 'https://submit.example.com',
        trustProxy: 'true',
        rateLimitSubmit: '3/1m',
      }),
    );
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line));
        done();
      },
    });
    surfaces = await listen(ctx, pino({ level: 'info' }, sink), { publicUrl: true, submitUrl: true });
    const apiPort = (surfaces.api.server.address() as { port: number }).port;
    const submitPort = (surfaces.submit.server.address() as { port: number }).port;
    nginxPort = await freePort();
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'formgate-nginx-'));
    fs.writeFileSync(
      path.join(folder, 'nginx.conf'),
      [
        'daemon off;',
        'master_process off;',
        `pid ${folder}/nginx.pid;`,
        `error_log ${folder}/error.log;`,
        'events {}',
        'http {',
        '  access_log off;',
        `  client_body_temp_path ${folder}/body; proxy_temp_path ${folder}/proxy;`,
        `  fastcgi_temp_path ${folder}/fastcgi; uwsgi_temp_path ${folder}/uwsgi; scgi_temp_path ${folder}/scgi;`,
        documentedConfig(nginxPort, apiPort, submitPort),
        '}',
      ].join('\n'),
    );
    nginx = spawn(NGINX!, ['-p', folder, '-c', path.join(folder, 'nginx.conf'), '-e', path.join(folder, 'error.log')], { stdio: 'ignore' });
    let exited = false;
    nginx.once('exit', () => (exited = true));
    await until('nginx listens', async () => {
      assert.equal(exited, false, `nginx exited: ${fs.existsSync(`${folder}/error.log`) ? fs.readFileSync(`${folder}/error.log`, 'utf8') : ''}`);
      return request('GET', `http://127.0.0.1:${nginxPort}/healthz`, null, { host: 'forms.example.com' }).then(
        (answer) => answer.status === 200,
        () => false,
      );
    });
  });

  after(async () => {
    nginx?.kill('SIGTERM');
    await surfaces?.close();
    await ctx?.close();
    await database?.drop();
    if (folder) fs.rmSync(folder, { recursive: true, force: true });
  });

  const viaNginx = `http://127.0.0.1:`;
  const logged = (id: string) => lines.find((line) => line.msg === 'request' && line.reqId === id);

  it('counts each visitor by the address nginx saw, whatever X-Forwarded-For it sends', async () => {
    const account = await createAccount({ ctx } as TestApp);
    // the API through nginx too, under the public name
    const created = await request('POST', `${viaNginx}${nginxPort}/public/v1/forms`, JSON.stringify({ workspaceId: account.workspaceId, name: 'Contact' }), {
      host: 'forms.example.com',
      authorization: `Bearer ${account.token}`,
      'content-type': 'application/json',
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const client = visitor();
    const send = (n: number) =>
      request(
        'POST',
        `${viaNginx}${nginxPort}/${created.body.id}`,
        `message=hello+${n}`,
        // a new forged address each time: before, each one was a new visitor to the rate limit
        {
          host: 'submit.example.com',
          accept: 'application/json',
          'content-type': 'application/x-www-form-urlencoded',
          'x-forwarded-for': `203.0.113.${n}`,
          'x-request-id': `nginx-submit-${n}`,
        },
        client,
      );
    for (let n = 1; n <= 3; n++) assert.equal((await send(n)).status, 200, `submission ${n}`);
    const refused = await send(4);
    assert.equal(refused.status, 429);
    assert.equal(refused.body.code, 'rate_limited');
    assert.equal(logged('nginx-submit-1')?.ip, client);
    // another visitor through the same nginx is counted apart
    const other = await request(
      'POST',
      `${viaNginx}${nginxPort}/${created.body.id}`,
      'message=hi',
      { host: 'submit.example.com', accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      visitor(),
    );
    assert.equal(other.status, 200);
  });

  it('refuses another name passed on by nginx (DNS rebinding) with 421', async () => {
    const answer = await request('GET', `${viaNginx}${nginxPort}/signup`, null, { host: 'rebind.example', accept: 'text/html' });
    assert.equal(answer.status, 421);
    assert.match(answer.body, /open it at https:\/\/forms\.example\.com/);
  });

  it('serves the dashboard under the public name, with the visitor’s address in the log', async () => {
    const client = visitor();
    const answer = await request(
      'GET',
      `${viaNginx}${nginxPort}/login`,
      null,
      { host: 'forms.example.com', accept: 'text/html', 'x-forwarded-for': '192.0.2.1', 'x-request-id': 'nginx-login' },
      client,
    );
    assert.equal(answer.status, 200);
    assert.equal(logged('nginx-login')?.ip, client, 'the address nginx appended, not the one the visitor wrote');
  });
});
