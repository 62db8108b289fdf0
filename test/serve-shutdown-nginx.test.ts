import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildConfig } from '../src/config/config.js';
import { openContext } from '../src/context.js';
import { type BuiltProgram, buildProgram } from './helpers/built-program.js';
import { cliEnv, seedUpgradedForm, spawnServe, type ServerProcess } from './helpers/cli.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from './helpers/database.js';

// The trial of issue 24: Formgate behind nginx, whose upstream pool keeps connections alive and
// reuses them, with visitors posting all the while, stopped with SIGTERM.

const NGINX = process.env.FORMGATE_TEST_NGINX ?? '/usr/sbin/nginx';
/** Visitors posting at once, each at most this many times. */
const VISITORS = 4;
const POSTS_EACH = 2_000;

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** nginx in the foreground with a configuration of its own: a keep-alive upstream pool in front of `upstream`. */
async function startNginx(folder: string, upstream: string): Promise<{ url: string; errorLog: () => string; stop: () => Promise<void> }> {
  const port = await freePort();
  const conf = path.join(folder, 'nginx.conf');
  for (const temp of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) fs.mkdirSync(path.join(folder, temp), { recursive: true });
  fs.writeFileSync(
    conf,
    `${process.getuid?.() === 0 ? 'user root;\n' : ''}worker_processes 1;
error_log ${folder}/error.log warn;
pid ${folder}/nginx.pid;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${folder}/body; proxy_temp_path ${folder}/proxy; fastcgi_temp_path ${folder}/fastcgi;
  uwsgi_temp_path ${folder}/uwsgi; scgi_temp_path ${folder}/scgi;
  upstream formgate { server ${new URL(upstream).host}; keepalive 16; }
  server {
    listen 127.0.0.1:${port};
    location / { proxy_pass http://formgate; proxy_http_version 1.1; proxy_set_header Connection ""; }
  }
}
`,
  );
  const child = spawn(NGINX, ['-p', folder, '-c', conf, '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  // nginx writes its pid file once its listening socket is open
  const pidFile = path.join(folder, 'nginx.pid');
  await new Promise<void>((resolve, reject) => {
    const watcher = fs.watch(folder, () => check());
    const timer = setTimeout(() => done(new Error(`nginx did not start within 10 s: ${stderr}`)), 10_000);
    const done = (error?: Error) => {
      watcher.close();
      clearTimeout(timer);
      child.off('exit', onExit);
      if (error) reject(error);
      else resolve();
    };
    const onExit = () => done(new Error(`nginx exited: ${stderr}`));
    const check = () => {
      if (fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim() !== '') done();
    };
    child.once('exit', onExit);
    check();
  });
  return {
    url: `http://127.0.0.1:${port}`,
    errorLog: () => fs.readFileSync(path.join(folder, 'error.log'), 'utf8'),
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGQUIT');
      await exited;
    },
  };
}

interface Visit {
  status: number;
  id?: string;
}

/** Posts a submission through nginx again and again until it answers 502 (no upstream left) or POSTS_EACH times. */
async function visitor(url: string, formId: string, n: number, onAnswer: () => void): Promise<Visit[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const visits: Visit[] = [];
  try {
    for (let i = 0; i < POSTS_EACH; i++) {
      const body = `name=visitor+${n}&message=post+${i}`;
      const visit = await new Promise<Visit>((resolve, reject) => {
        const request = http.request(
          `${url}/${formId}`,
          {
            method: 'POST',
            agent,
            headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', 'content-length': body.length },
          },
          (response) => {
            let text = '';
            response.setEncoding('utf8').on('data', (chunk: string) => {
              text += chunk;
            });
            response.once('end', () => resolve({ status: response.statusCode!, id: response.statusCode === 200 ? JSON.parse(text).id : undefined }));
          },
        );
        request.once('error', reject);
        request.end(body);
      });
      visits.push(visit);
      onAnswer();
      if (visit.status === 502) break;
    }
  } finally {
    agent.destroy();
  }
  return visits;
}

describe(`formgate serve behind nginx with a keep-alive upstream pool (${TEST_DIALECT})`, { skip: !fs.existsSync(NGINX) && `no nginx at ${NGINX}` }, () => {
  let database: TestDatabase;
  let bundle: BuiltProgram | undefined;
  let folder: string;
  let formId: string;
  let server: ServerProcess | undefined;
  let nginx: Awaited<ReturnType<typeof startNginx>> | undefined;

  before(async () => {
    bundle = await buildProgram();
    database = await createTestDatabase();
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'formgate-nginx-'));
    ({ formId } = await seedUpgradedForm(database, { email: `nginx-${process.pid}@example.com`, formName: 'Behind nginx' }));
  });
  after(async () => {
    server?.kill();
    await server?.waitForExit(5_000).catch(() => undefined);
    await nginx?.stop();
    await database?.drop();
    bundle?.remove();
    if (folder) fs.rmSync(folder, { recursive: true, force: true });
  });

  it('stops within the bound while visitors post through nginx; every 200 is stored; nginx never saw a connection closed under a request', async () => {
    server = spawnServe(
      cliEnv(database, { FORMGATE_HOST: '127.0.0.1', FORMGATE_PORT: '0', FORMGATE_SUBMIT_PORT: '0', FORMGATE_RATE_LIMIT_SUBMIT: 'off' }),
      bundle!.program,
    );
    const ready = await server.waitForLine((l) => String(l.json?.msg ?? '').startsWith('Formgate is ready'), 'the ready line');
    nginx = await startNginx(folder, ready.json!.submitUrl);

    let answered = 0;
    let signal!: () => void;
    const warm = new Promise<void>((resolve) => (signal = resolve));
    const visitors = Array.from({ length: VISITORS }, (_, n) =>
      visitor(nginx!.url, formId, n, () => {
        if (++answered === 100) signal();
      }),
    );
    await warm;
    const sent = performance.now();
    assert.ok(server.child.kill('SIGTERM'));
    const exit = await server.waitForExit();
    const took = performance.now() - sent;
    const visits = (await Promise.all(visitors)).flat();
    assert.deepEqual(exit, { code: 0, signal: null }, server.stderr());
    // within the container's 10 s by the code's own bound (past its 9 s stop deadline it exits 1), and no connection was cut at the drain deadline
    assert.ok(
      !server.lines.some((l) => /^closed \d+ connection/.test(String(l.json?.msg ?? ''))),
      `exited ${Math.round(took)} ms after SIGTERM, a connection cut`,
    );

    // 200 while the instance was there, 502 once nothing listened (another instance would take them)
    const statuses = new Set(visits.map((v) => v.status));
    assert.deepEqual(
      [...statuses].filter((s) => s !== 200 && s !== 502),
      [],
      `answers: ${[...statuses]}`,
    );
    assert.ok(visits.length < VISITORS * POSTS_EACH, 'the visitors were cut off by the shutdown, not done');
    // a 502 for a POST that nginx sent on a connection the server closed under it would be a visitor's post lost
    const errors = nginx.errorLog();
    assert.doesNotMatch(errors, /reset by peer|prematurely closed|broken pipe/i, errors);

    const accepted = visits.filter((v) => v.status === 200).map((v) => v.id!);
    const ctx = await openContext(buildConfig({ databaseUrl: database.url, dataDir: database.dataDir }));
    try {
      const stored = await ctx.database.db.selectFrom('submissions').select('id').where('formId', '=', formId).execute();
      const storedIds = new Set(stored.map((row) => row.id));
      assert.deepEqual(
        accepted.filter((id) => !storedIds.has(id)),
        [],
        'every submission answered 200 is stored',
      );
    } finally {
      await ctx.close();
    }
  });
});
