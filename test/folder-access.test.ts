// A data folder Formgate's user may not write in (a host folder mounted into the container, owned
// by root, where the image runs as uid 1000) stops serve with exit 2, naming the folder and the
// chown that mends it, instead of a bare EACCES (issue 38, item 23).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type BuiltProgram, buildProgram } from './helpers/built-program.js';
import { cliEnv, followProcess, type ServerProcess } from './helpers/cli.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from './helpers/database.js';

// as root, every folder is writable: the server then runs as `nobody`, on a link to this Node.js
// (its own folder may be closed to others), as the container's user would
const ROOT = process.getuid?.() === 0;
const NOBODY = 65534;

describe(`a data folder Formgate may not write in (${TEST_DIALECT})`, { skip: TEST_DIALECT !== 'sqlite' && 'the SQLite file is what is made there' }, () => {
  let bundle: BuiltProgram;
  let folder: string;
  let database: TestDatabase;
  let server: ServerProcess | undefined;
  before(async () => {
    bundle = await buildProgram();
    database = await createTestDatabase();
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'formgate-access-'));
    fs.chmodSync(folder, 0o755);
  });
  after(async () => {
    server?.kill();
    bundle?.remove();
    await database?.drop();
    if (folder) fs.rmSync(folder, { recursive: true, force: true });
  });

  it('exits 2 naming the folder and the chown, as one fatal JSON line', async () => {
    // a folder that exists, owned by someone else (root) or closed to this user
    const data = path.join(folder, 'data');
    fs.mkdirSync(data, { mode: ROOT ? 0o755 : 0o555 });
    let node = process.execPath;
    if (ROOT) {
      node = path.join(folder, 'node');
      try {
        fs.linkSync(process.execPath, node);
      } catch {
        fs.copyFileSync(process.execPath, node);
      }
      fs.chmodSync(node, 0o755);
    }
    const env: NodeJS.ProcessEnv = {
      ...cliEnv(database, { FORMGATE_HOST: '127.0.0.1', FORMGATE_PORT: '0', FORMGATE_SUBMIT_PORT: '0', FORMGATE_DATA_DIR: data }),
      HOME: folder,
    };
    delete env.FORMGATE_DATABASE_URL;
    server = followProcess(
      spawn(node, [bundle.program[0]!, 'serve'], { cwd: folder, env, stdio: ['ignore', 'pipe', 'pipe'], ...(ROOT ? { uid: NOBODY, gid: NOBODY } : {}) }),
    );
    assert.deepEqual(await server.waitForExit(30_000), { code: 2, signal: null }, server.stderr());
    const fatal = server.lines.at(-1)?.json;
    assert.equal(fatal?.level, 60, `${server.lines.map((l) => l.raw).join('\n')}\n${server.stderr()}`);
    assert.equal(fatal.code, 'config');
    const owner = ROOT ? `${NOBODY}:${NOBODY}` : `${process.getuid!()}:${process.getgid!()}`;
    assert.equal(
      fatal.msg,
      `Formgate (running as ${owner}) may not write in the folder ${data} (EACCES): give it to that user, as root: \`chown -R ${owner} ${data}\`. ` +
        `In the container image Formgate runs as 1000:1000: run \`chown -R 1000:1000\` on the host's folder mounted at ${data}.`,
    );
    assert.deepEqual(fs.readdirSync(data), [], 'nothing was made');
  });
});
