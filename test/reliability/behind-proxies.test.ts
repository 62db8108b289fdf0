import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Surfaces } from '../../src/app.js';
import { listen } from '../../src/cli/serve.js';
import { openContext, type AppContext } from '../../src/context.js';
import { type TestApp, testConfig } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { uploadCeilings } from '../../src/domain/uploads.js';
import { collectingLogger } from '../helpers/log-lines.js';
import { until } from '../helpers/eventually.js';
import { createAccount } from '../helpers/fixtures.js';
import { request } from '../helpers/submit.js';
import { CADDY_BINARY, documented, freePort, NGINX_BINARY, startCaddy, startNginx } from '../helpers/documented-proxies.js';
import { postFiles, uploadSizesAtLimit } from '../helpers/upload-post.js';

// The reverse-proxy configurations of docs/configuration.md, as written there, run for real in
// front of Formgate with the environment the page gives, on loopback ports instead of 443.

interface Ports {
  proxy: number;
  api: number;
  submit: number;
}

interface Proxy {
  name: string;
  binary: string | undefined;
  /** Writes the documented configuration into `folder`, adapted to `ports`, and starts the proxy. */
  start(folder: string, ports: Ports): ChildProcess;
}

const NGINX: Proxy = {
  name: 'nginx',
  binary: NGINX_BINARY,
  start(folder, ports) {
    const servers = documented('nginx')
      .replaceAll('http://127.0.0.1:8080', `http://127.0.0.1:${ports.api}`)
      .replaceAll('http://127.0.0.1:8081', `http://127.0.0.1:${ports.submit}`);
    return startNginx(folder, ports.proxy, servers);
  },
};

const CADDY: Proxy = {
  name: 'Caddy',
  binary: CADDY_BINARY,
  start(folder, ports) {
    const sites = documented('caddy').replaceAll('127.0.0.1:8080', `127.0.0.1:${ports.api}`).replaceAll('127.0.0.1:8081', `127.0.0.1:${ports.submit}`);
    return startCaddy(folder, ports.proxy, sites);
  },
};

const visitor = () => `127.${randomInt(1, 255)}.${randomInt(1, 255)}.${randomInt(2, 255)}`;

for (const proxy of [NGINX, CADDY]) {
  describe(`behind the documented ${proxy.name} configuration`, { skip: !proxy.binary && `SKIPPED: ${proxy.name} is not installed` }, () => {
    let database: TestDatabase;
    let ctx: AppContext;
    let surfaces: Surfaces;
    let child: ChildProcess;
    let proxyPort: number;
    let folder: string;
    const { logger, lines } = collectingLogger();
    const logged = (id: string) => lines.find((line) => line.msg === 'request' && line.reqId === id);
    const via = (urlPath: string) => `http://127.0.0.1:${proxyPort}${urlPath}`;

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
      surfaces = await listen(ctx, logger, { publicUrl: true, submitUrl: true });
      proxyPort = await freePort();
      folder = fs.mkdtempSync(path.join(os.tmpdir(), `formgate-${proxy.name.toLowerCase()}-`));
      child = proxy.start(folder, {
        proxy: proxyPort,
        api: (surfaces.api.server.address() as { port: number }).port,
        submit: (surfaces.submit.server.address() as { port: number }).port,
      });
      let errors = '';
      child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
      let exited = false;
      child.once('exit', () => (exited = true));
      await until(`${proxy.name} listens`, async () => {
        assert.equal(exited, false, `${proxy.name} exited: ${errors}`);
        return request('GET', via('/healthz'), null, { host: 'forms.example.com' }).then(
          (answer) => answer.status === 200,
          () => false,
        );
      });
    });

    after(async () => {
      child?.kill('SIGTERM');
      await surfaces?.close();
      await ctx?.close();
      await database?.drop();
      if (folder) fs.rmSync(folder, { recursive: true, force: true });
    });

    it('counts each visitor by the address the proxy saw, whatever X-Forwarded-For it sends', async () => {
      const account = await createAccount({ ctx } as TestApp);
      // the API through the proxy too, under the public name
      const created = await request('POST', via('/public/v1/forms'), JSON.stringify({ workspaceId: account.workspaceId, name: 'Contact' }), {
        host: 'forms.example.com',
        authorization: `Bearer ${account.token}`,
        'content-type': 'application/json',
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const client = visitor();
      const send = (n: number) =>
        request(
          'POST',
          via(`/${created.body.id}`),
          `message=hello+${n}`,
          // a new forged address each time: before, each one was a new visitor to the rate limit
          {
            host: 'submit.example.com',
            accept: 'application/json',
            'content-type': 'application/x-www-form-urlencoded',
            'x-forwarded-for': `203.0.113.${n}`,
            'x-request-id': `submit-${n}`,
          },
          client,
        );
      for (let n = 1; n <= 3; n++) assert.equal((await send(n)).status, 200, `submission ${n}`);
      const refused = await send(4);
      assert.equal(refused.status, 429);
      assert.equal(refused.body.code, 'rate_limited');
      assert.equal(logged('submit-1')?.ip, client);
      // another visitor through the same proxy is counted apart
      const other = await request(
        'POST',
        via(`/${created.body.id}`),
        'message=hi',
        { host: 'submit.example.com', accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
        visitor(),
      );
      assert.equal(other.status, 200);
    });

    it('passes a submission at the largest plan’s upload limit (issue 38, item 8: nginx refused bodies over 1 MB)', { timeout: 180_000 }, async () => {
      const account = await createAccount({ ctx } as TestApp);
      const { maxFileSize, maxTotalSize } = uploadCeilings('BUNDLE_50000');
      const created = await request(
        'POST',
        via('/public/v1/forms'),
        JSON.stringify({ workspaceId: account.workspaceId, name: 'Uploads', fileUploads: { maxFileSize, maxTotalSize, allowedTypes: ['.pdf'] } }),
        { host: 'forms.example.com', authorization: `Bearer ${account.token}`, 'content-type': 'application/json' },
      );
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const sizes = uploadSizesAtLimit(maxFileSize, maxTotalSize);
      const answer = await postFiles(via(`/${created.body.id}`), 'submit.example.com', sizes);
      assert.equal(answer.status, 200, JSON.stringify(answer.body).slice(0, 500));
      const files = await ctx.database.db
        .selectFrom('submissionFiles')
        .select(['size', 'storageKey'])
        .where('submissionId', '=', answer.body.id)
        .orderBy('position')
        .execute();
      assert.deepEqual(
        files.map((file) => [file.size, file.storageKey !== null]),
        sizes.map((size) => [size, true]),
        'every file stored whole',
      );
    });

    it('serves the dashboard under the public name, with the visitor’s address in the log', async () => {
      const client = visitor();
      const answer = await request(
        'GET',
        via('/login'),
        null,
        { host: 'forms.example.com', accept: 'text/html', 'x-forwarded-for': '192.0.2.1', 'x-forwarded-host': 'rebind.example', 'x-request-id': 'login' },
        client,
      );
      assert.equal(answer.status, 200, 'a visitor’s own X-Forwarded-Host does not pass the proxy');
      assert.equal(logged('login')?.ip, client, 'the address the proxy appended, not the one the visitor wrote');
    });

    it('refuses another name passed on by the proxy (DNS rebinding) with 421', async () => {
      const answer = await request('GET', via('/signup'), null, { host: 'rebind.example', accept: 'text/html' });
      // nginx passes any name on to its first server; Caddy answers a name it does not serve itself, with nothing of Formgate's
      if (proxy.name === 'Caddy' && answer.status !== 421) assert.doesNotMatch(String(answer.body ?? ''), /Formgate|Create account/);
      else {
        assert.equal(answer.status, 421);
        assert.match(answer.body, /open it at https:\/\/forms\.example\.com/);
      }
    });
  });
}
