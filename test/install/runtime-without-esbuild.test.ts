// The container image's runtime stage leaves esbuild out (Dockerfile; issue 38, item 23: 11 MB of a
// build tool in every image). This runs the built program as that stage holds it: dist/ beside the
// production packages without esbuild, so a bundle that still loaded esbuild would fail here, not
// in the image (test/container/image.sh checks the image itself where podman runs).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { type BuiltProgram, buildProgram } from '../helpers/built-program.js';
import { cliEnv, followProcess, PROJECT_ROOT, runCli, type ServerProcess } from '../helpers/cli.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../helpers/database.js';

const BUILD_ONLY = new Set(['esbuild', '@esbuild', '.bin', '.cache']);

describe(`the program without esbuild, as in the image (${TEST_DIALECT})`, () => {
  let bundle: BuiltProgram;
  let folder: string;
  let database: TestDatabase;
  let server: ServerProcess | undefined;
  before(async () => {
    bundle = await buildProgram();
    database = await createTestDatabase();
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'formgate-runtime-'));
    fs.cpSync(path.dirname(bundle.program[0]!), path.join(folder, 'dist'), { recursive: true });
    fs.mkdirSync(path.join(folder, 'node_modules'));
    for (const entry of fs.readdirSync(path.join(PROJECT_ROOT, 'node_modules'))) {
      if (!BUILD_ONLY.has(entry)) fs.symlinkSync(path.join(PROJECT_ROOT, 'node_modules', entry), path.join(folder, 'node_modules', entry));
    }
  });
  after(async () => {
    server?.kill();
    bundle?.remove();
    await database?.drop();
    if (folder) fs.rmSync(folder, { recursive: true, force: true });
  });

  it('has no esbuild to load', () => {
    assert.throws(() => createRequire(import.meta.url).resolve('esbuild', { paths: [path.join(folder, 'dist')] }), /Cannot find module/);
  });

  it('migrates, serves and stops', async () => {
    const main = path.join(folder, 'dist', 'main.js');
    const env = cliEnv(database, { FORMGATE_HOST: '127.0.0.1', FORMGATE_PORT: '0', FORMGATE_SUBMIT_PORT: '0' });
    const migrated = await runCli(env, ['migrate', '--json'], [main]);
    assert.equal(migrated.code, 0, migrated.stderr);
    server = followProcess(spawn(process.execPath, [main, 'serve'], { cwd: folder, env, stdio: ['ignore', 'pipe', 'pipe'] }));
    const ready = await server.waitForLine((line) => /^Formgate is ready/.test(line.json?.msg ?? ''), 'the ready line', 30_000);
    assert.equal((await fetch(`${ready.json!.dashboardUrl}/healthz`)).status, 200);
    server.child.kill('SIGTERM');
    assert.deepEqual(await server.waitForExit(), { code: 0, signal: null }, server.stderr());
  });
});
