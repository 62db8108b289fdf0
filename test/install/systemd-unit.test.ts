import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type BuiltProgram, buildProgram } from '../helpers/built-program.js';
import { followProcess, type LogLine, PROJECT_ROOT, type ServerProcess } from '../helpers/cli.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../helpers/database.js';
import { seedNodeCache, toolchainSkip } from '../helpers/node-toolchain.js';

// deploy/systemd/formgate.service as systemd would run it, without systemd: its ExecStart, in its
// WorkingDirectory, with its Environment= and EnvironmentFile= and the environment systemd gives a
// User= service (PATH, HOME), the unit's folders mapped to temporary ones.

const UNIT = path.join(PROJECT_ROOT, 'deploy', 'systemd', 'formgate.service');
const ENV_FILE = path.join(PROJECT_ROOT, 'deploy', 'systemd', 'formgate.env');
const READY = (line: LogLine) => String(line.json?.msg ?? '').startsWith('Formgate is ready');
// systemd's PATH for services
const SYSTEMD_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** The [Service] section: each key's values, in order (Environment= may repeat). */
function parseService(text: string): Map<string, string[]> {
  const keys = new Map<string, string[]>();
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) section = header[1]!;
    else if (section === 'Service') {
      const at = line.indexOf('=');
      keys.set(line.slice(0, at), [...(keys.get(line.slice(0, at)) ?? []), line.slice(at + 1)]);
    }
  }
  return keys;
}

/** KEY=value lines, as systemd reads an EnvironmentFile= (comments and blank lines skipped). */
function parseEnvironmentFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n').map((l) => l.trim())) {
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const at = line.indexOf('=');
    env[line.slice(0, at)] = line.slice(at + 1);
  }
  return env;
}

describe(`deploy/systemd/formgate.service (${TEST_DIALECT})`, () => {
  const service = parseService(fs.readFileSync(UNIT, 'utf8'));
  const one = (key: string) => {
    const values = service.get(key) ?? [];
    assert.equal(values.length, 1, `one ${key}= in the unit`);
    return values[0]!;
  };
  let folder: string;
  let bundle: BuiltProgram | undefined;
  let database: TestDatabase;
  let server: ServerProcess | undefined;

  before(async () => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'formgate-systemd-'));
    bundle = await buildProgram();
    database = await createTestDatabase();
  });
  after(async () => {
    server?.kill();
    await database?.drop();
    bundle?.remove();
    if (folder) fs.rmSync(folder, { recursive: true, force: true });
  });

  it('runs as its own user, restarts on failure, stops within its timeout, and writes only to its state folder', () => {
    assert.equal(one('User'), 'formgate');
    assert.equal(one('Restart'), 'on-failure');
    assert.ok(Number.parseInt(one('TimeoutStopSec'), 10) >= 10, one('TimeoutStopSec'));
    assert.equal(one('NoNewPrivileges'), 'true');
    assert.equal(one('ProtectSystem'), 'strict');
    const dataDir = (service.get('Environment') ?? []).find((e) => e.startsWith('FORMGATE_DATA_DIR='))?.split('=')[1];
    assert.ok(dataDir?.startsWith(`${one('ReadWritePaths')}/`), `the data folder ${dataDir} is under ReadWritePaths`);
    assert.equal(path.basename(one('EnvironmentFile')), 'formgate.env');
  });

  it('its ExecStart, environment and working folder start the server, which answers /healthz and stops on SIGTERM', async () => {
    const install = one('WorkingDirectory');
    const state = one('ReadWritePaths');
    // the unit's folders, here: a checkout with the program built, the service user's home, the env file
    const map = (value: string) =>
      value.replaceAll(install, path.join(folder, 'opt')).replaceAll(state, path.join(folder, 'state')).replaceAll(one('EnvironmentFile'), ENV_FILE);
    fs.mkdirSync(path.join(folder, 'opt'));
    fs.cpSync(path.join(PROJECT_ROOT, 'scripts'), path.join(folder, 'opt', 'scripts'), { recursive: true });
    fs.copyFileSync(path.join(PROJECT_ROOT, 'package.json'), path.join(folder, 'opt', 'package.json'));
    fs.symlinkSync(path.dirname(bundle!.program[0]!), path.join(folder, 'opt', 'dist'));
    const home = path.join(folder, 'state');
    // the machine's Node.js when it is new enough; otherwise the one scripts/node.sh switches to, cached
    const switching = toolchainSkip() === false;
    if (switching) seedNodeCache(path.join(home, '.cache', 'formgate-node'));

    const env: Record<string, string> = { PATH: switching ? SYSTEMD_PATH : `${path.dirname(process.execPath)}:${SYSTEMD_PATH}`, HOME: home };
    for (const assignment of service.get('Environment') ?? []) {
      const at = assignment.indexOf('=');
      env[assignment.slice(0, at)] = map(assignment.slice(at + 1));
    }
    Object.assign(env, parseEnvironmentFile(fs.readFileSync(map(one('EnvironmentFile')), 'utf8')));
    // free ports instead of 8080 and 8081; the test's PostgreSQL when the suite runs on it
    Object.assign(env, { FORMGATE_PORT: '0', FORMGATE_SUBMIT_PORT: '0', FORMGATE_CONFIRM_RECIPIENTS: 'off' });
    if (TEST_DIALECT === 'postgres') env.FORMGATE_DATABASE_URL = database.url;
    const [command, ...args] = map(one('ExecStart')).split(/\s+/);
    assert.ok(path.isAbsolute(command!) && fs.statSync(command!).mode & 0o111, `ExecStart runs an executable: ${command}`);

    server = followProcess(spawn(command!, args, { cwd: map(install), env, stdio: ['ignore', 'pipe', 'pipe'] }));
    const ready = await server.waitForLine(READY, 'the ready line', 60_000);
    if (switching) assert.equal(fs.realpathSync(`/proc/${ready.json!.pid}/exe`), fs.realpathSync(process.execPath), 'on the Node.js switched to');
    assert.equal(ready.json!.pid, server.child.pid, 'node is the main process: scripts/node.sh execs it');
    for (const url of [ready.json!.dashboardUrl, ready.json!.submitUrl]) assert.equal((await fetch(`${url}/healthz`)).status, 200, url);
    if (TEST_DIALECT === 'sqlite') assert.ok(fs.existsSync(path.join(env.FORMGATE_DATA_DIR!, 'formgate.db')), 'the database is in the state folder');

    // stopped within the unit's own TimeoutStopSec (past it systemd would kill it): the bound is the unit's, not a stopwatch's
    server.child.kill('SIGTERM');
    assert.deepEqual(await server.waitForExit(Number.parseInt(one('TimeoutStopSec'), 10) * 1000), { code: 0, signal: null }, server.stderr());
  });

  it('passes systemd-analyze verify', { skip: spawnSync('systemd-analyze', ['--version']).status !== 0 && 'no systemd-analyze' }, () => {
    // the unit with its paths pointing at this checkout, so that verify finds ExecStart's program
    const copy = path.join(folder, 'formgate.service');
    fs.writeFileSync(
      copy,
      fs.readFileSync(UNIT, 'utf8').replaceAll(one('WorkingDirectory'), PROJECT_ROOT.replace(/\/$/, '')).replaceAll(one('EnvironmentFile'), ENV_FILE),
    );
    const run = spawnSync('systemd-analyze', ['verify', copy], { encoding: 'utf8', timeout: 30_000 });
    assert.deepEqual({ status: run.status, stderr: run.stderr }, { status: 0, stderr: '' });
  });

  it("does not restart after exit 2, the setup's fault (a newer schema mid-upgrade, a misspelt variable), which would loop", () => {
    assert.deepEqual(one('RestartPreventExitStatus').split(/\s+/), ['2']);
  });

  const offline = spawnSync('systemd-analyze', ['security', '--offline=true', '--help']).status === 0;
  it('filters system calls and hides /proc, for an exposure of at most 2.0', {
    skip: !offline && 'no systemd-analyze security --offline (systemd 250 or later)',
  }, () => {
    assert.deepEqual(service.get('SystemCallFilter'), ['@system-service', '~@privileged']);
    assert.equal(one('SystemCallErrorNumber'), 'EPERM', 'a refused call fails; it does not kill the server');
    assert.equal(one('ProtectProc'), 'invisible');
    assert.equal(one('ProcSubset'), 'pid');
    const run = spawnSync('systemd-analyze', ['security', '--offline=true', '--no-pager', UNIT], { encoding: 'utf8', timeout: 30_000 });
    const exposure = /Overall exposure level for formgate\.service: (\d+\.\d)/.exec(run.stdout);
    assert.ok(exposure, run.stdout + run.stderr);
    assert.ok(Number(exposure[1]) <= 2.0, `exposure ${exposure[1]}`);
  });
});
