import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { unsupportedNodeMessage } from '../src/cli/node-version.js';
import { type BuiltProgram, buildProgram } from './helpers/built-program.js';
import { PROJECT_ROOT } from './helpers/cli.js';

describe('unsupportedNodeMessage', () => {
  it('turns away Node.js older than 22.12 and names the version and what to do', () => {
    for (const version of ['18.20.4', '20.20.2', '21.7.3', '22.0.0', '22.11.0']) {
      const message = unsupportedNodeMessage(version);
      assert.ok(message?.includes(`this is v${version}.`), `${version}: ${message}`);
      assert.match(message!, /needs Node\.js 22\.12 or later/);
      assert.match(message!, /scripts\/install-node\.sh 24/);
    }
    for (const version of ['22.12.0', '22.20.0', '23.0.0', '24.21.0', '26.1.0']) assert.equal(unsupportedNodeMessage(version), null, version);
  });
});

// The system's Node.js on this machine is 20 (as on many servers: the README's `alias formgate=…`,
// a systemd unit). FORMGATE_TEST_OLD_NODE names another.
const OLD_NODE = process.env.FORMGATE_TEST_OLD_NODE ?? '/usr/bin/node';
const oldVersion = fs.existsSync(OLD_NODE) ? execFileSync(OLD_NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim() : null;
const noOldNode = (oldVersion === null || unsupportedNodeMessage(oldVersion) === null) && `no Node.js older than 22.12 at ${OLD_NODE}`;

describe(`the built program on an old Node.js (${OLD_NODE}, ${oldVersion ?? 'none'})`, { skip: noOldNode }, () => {
  let bundle: BuiltProgram | undefined;
  let folder: string;
  before(async () => {
    bundle = await buildProgram();
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'formgate-old-node-'));
  });
  after(() => {
    bundle?.remove();
    if (folder) fs.rmSync(folder, { recursive: true, force: true });
  });

  const expected = () => `${unsupportedNodeMessage(oldVersion!)}\n`;

  for (const args of [['--version'], ['migrate'], ['serve'], ['migrate', '--json']]) {
    it(`formgate ${args.join(' ')} stops with the message and exit code 2, before anything loads or is made`, () => {
      const dataDir = path.join(folder, args[0]!.replace(/\W/g, ''));
      const run = spawnSync(OLD_NODE, [...bundle!.program, ...args], {
        cwd: folder,
        env: { PATH: process.env.PATH, FORMGATE_DATA_DIR: dataDir, FORMGATE_PORT: '0', FORMGATE_SUBMIT_PORT: '0' },
        encoding: 'utf8',
        timeout: 20_000,
      });
      const json = args.includes('--json');
      assert.deepEqual(
        { status: run.status, signal: run.signal, stderr: run.stderr, stdout: run.stdout },
        {
          status: 2,
          signal: null,
          stderr: json ? '' : expected(),
          stdout: json ? `${JSON.stringify({ error: { code: 'config', message: unsupportedNodeMessage(oldVersion!) } })}\n` : '',
        },
      );
      assert.equal(fs.existsSync(dataDir), false, 'no data folder or database was made');
    });
  }

  it('says what the build says when `npm ci` or `npm start` builds on it', () => {
    const run = spawnSync(OLD_NODE, ['scripts/build.mjs', path.join(folder, 'never-built', 'main.js')], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.deepEqual({ status: run.status, stderr: run.stderr }, { status: 1, stderr: expected() });
    assert.equal(fs.existsSync(path.join(folder, 'never-built')), false);
  });
});

// Issue 39, item 21: the README's command-line shortcut ran `node dist/main.js`, which an old
// system Node.js turns away; its `scripts/node.sh` runs the program on the Node.js npm start uses.
describe(`the README's command-line shortcut on an old Node.js (${OLD_NODE}, ${oldVersion ?? 'none'})`, { skip: noOldNode }, () => {
  it('runs the program, with only the old Node.js on the PATH', () => {
    const readme = fs.readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
    const alias = /^alias formgate="([^"]+)"$/m.exec(readme);
    assert.ok(alias, 'the README defines the shortcut');
    const command = alias[1]!.replaceAll('$PWD', PROJECT_ROOT);
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'formgate-old-path-'));
    try {
      fs.symlinkSync(OLD_NODE, path.join(bin, 'node'));
      // the shortcut as a shell runs it: its words, then the command's own
      const run = spawnSync('sh', ['-c', `${command} --version`], {
        cwd: PROJECT_ROOT,
        env: { PATH: `${bin}:/usr/bin:/bin`, HOME: os.homedir() },
        encoding: 'utf8',
        timeout: 60_000,
      });
      const version = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')).version;
      assert.equal(run.status, 0, run.stderr);
      assert.match(run.stdout, new RegExp(`^${version.replaceAll('.', '\\.')}\\b`));
    } finally {
      fs.rmSync(bin, { recursive: true, force: true });
    }
  });
});
