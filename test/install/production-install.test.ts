import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cliEnv, followProcess, type LogLine, PROJECT_ROOT, type ServerProcess } from '../helpers/cli.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../helpers/database.js';
import { OLD_NODE, OLD_VERSION, oldNodePath, seedNodeCache, switchLine, toolchainSkip } from '../helpers/node-toolchain.js';

// What an operator does on a server whose Node.js is too old (this machine's is 20): a fresh checkout,
// `npm ci --omit=dev` (no compilers, no dev tools), then `formgate serve` and `npm start`. The checkout
// is this worktree's files as git sees them (committed or not); npm installs from its cache when it
// can (--prefer-offline), and the Node.js it switches to is the one this test runs on (seedNodeCache).

const READY = (line: LogLine) => String(line.json?.msg ?? '').startsWith('Formgate is ready');
const DEV_TOOLS = ['typescript', 'tsx', '@biomejs/biome', '@types/node', 'smtp-server'];

describe(`a production install on an old Node.js (${OLD_NODE}, ${OLD_VERSION ?? 'none'}; ${TEST_DIALECT})`, { skip: toolchainSkip() }, () => {
  let folder: string;
  let checkout: string;
  let database: TestDatabase;
  let cache: { folder: string; version: string };
  const servers: ServerProcess[] = [];

  before(async () => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'formgate-install-'));
    checkout = path.join(folder, 'formgate');
    const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: PROJECT_ROOT, encoding: 'utf8' });
    for (const file of files.split('\0')) {
      const from = path.join(PROJECT_ROOT, file);
      if (!file || file === 'node_modules' || !fs.existsSync(from) || !fs.lstatSync(from).isFile()) continue;
      fs.mkdirSync(path.dirname(path.join(checkout, file)), { recursive: true });
      fs.copyFileSync(from, path.join(checkout, file));
    }
    cache = seedNodeCache(path.join(folder, 'node-cache'));
    database = await createTestDatabase();
  });
  after(async () => {
    for (const server of servers) server.kill();
    await database?.drop();
    if (folder) fs.rmSync(folder, { recursive: true, force: true });
  });

  /** The environment of the operator's shell: the old Node.js first on PATH, no FORMGATE_* of the test runner's. */
  const operatorEnv = (extra: Record<string, string> = {}) =>
    cliEnv(database, {
      PATH: oldNodePath(),
      FORMGATE_NODE_CACHE: path.join(folder, 'node-cache'),
      FORMGATE_HOST: '127.0.0.1',
      FORMGATE_PORT: '0',
      FORMGATE_SUBMIT_PORT: '0',
      ...extra,
    });

  /** Starts `command`, waits for the ready line and /healthz, stops it with SIGTERM and returns what it printed. */
  async function startAndStop(command: string, args: string[]): Promise<{ stderr: string; node: string }> {
    const server = followProcess(spawn(command, args, { cwd: checkout, env: operatorEnv(), stdio: ['ignore', 'pipe', 'pipe'] }));
    servers.push(server);
    const ready = await server.waitForLine(READY, `the ready line of ${command} ${args.join(' ')}`, 60_000);
    const health = await fetch(`${ready.json!.dashboardUrl}/healthz`);
    assert.equal(health.status, 200, await health.text());
    const node = fs.realpathSync(`/proc/${ready.json!.pid}/exe`);
    server.child.kill('SIGTERM');
    const exit = await server.waitForExit();
    assert.deepEqual(exit, { code: 0, signal: null }, server.stderr());
    assert.ok(
      server.lines.some((l) => l.json?.msg === 'stopped'),
      server.lines.map((l) => l.raw).join('\n'),
    );
    return { stderr: server.stderr(), node };
  }

  it('npm ci --omit=dev installs and builds on the fetched Node.js, with no dev tool and no worrying warning', async () => {
    const install = followProcess(
      spawn('npm', ['ci', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund'], {
        cwd: checkout,
        env: operatorEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    const exit = await install.waitForExit(240_000);
    const log = `${install.lines.map((l) => l.raw).join('\n')}\n${install.stderr()}`;
    assert.deepEqual(exit, { code: 0, signal: null }, log);
    const note = "; npm's EBADENGINE lines above are about the Node.js npm itself runs on";
    assert.equal(log.split(switchLine(OLD_VERSION!, cache.folder, note)).length, 2, `the switch said once:\n${log}`);
    fs.writeFileSync(path.join(folder, 'install.log'), log);
    execFileSync('bash', ['scripts/check-install-log.sh', path.join(folder, 'install.log')], { cwd: checkout, stdio: 'pipe' });
    for (const tool of DEV_TOOLS) assert.equal(fs.existsSync(path.join(checkout, 'node_modules', tool)), false, `${tool} is not installed`);
    for (const file of ['main.js', 'program.js', 'template-worker.js']) assert.ok(fs.existsSync(path.join(checkout, 'dist', file)), file);
  });

  it('node dist/main.js serve answers /healthz and stops on SIGTERM', async () => {
    await startAndStop(process.execPath, ['dist/main.js', 'serve']);
  });

  it('npm start with dist/ up to date: no build, the server on the fetched Node.js, signals reach it', async () => {
    const before = fs.statSync(path.join(checkout, 'dist', 'main.js')).mtimeMs;
    const { stderr, node } = await startAndStop('npm', ['start']);
    assert.equal(node, fs.realpathSync(process.execPath), 'the server runs on the fetched Node.js, not the old one first on PATH');
    assert.equal(fs.statSync(path.join(checkout, 'dist', 'main.js')).mtimeMs, before, 'dist/ was not built again');
    assert.equal(stderr.split(switchLine(OLD_VERSION!, cache.folder)).length, 2, stderr);
  });

  it('npm start after a source changed: builds dist/ first', async () => {
    const before = fs.statSync(path.join(checkout, 'dist', 'main.js')).mtimeMs;
    const later = new Date(Date.now() + 1000);
    fs.utimesSync(path.join(checkout, 'src', 'cli', 'program.ts'), later, later);
    await startAndStop('npm', ['start']);
    assert.ok(fs.statSync(path.join(checkout, 'dist', 'main.js')).mtimeMs > before, 'dist/ was built again');
  });
});
