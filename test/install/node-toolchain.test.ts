import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { OLDEST_NODE, unsupportedNodeMessage } from '../../src/cli/node-version.js';
import { PROJECT_ROOT } from '../helpers/cli.js';
import { OLD_NODE, OLD_VERSION, oldNodePath, seedNodeCache, switchLine, TOOLCHAIN_LINE, toolchainSkip } from '../helpers/node-toolchain.js';

const DAY_MS = 24 * 60 * 60 * 1000;
// an address where nothing listens: the registry does not answer, at once
const NO_REGISTRY = 'http://127.0.0.1:9/';

describe('package.json: the Node.js versions the scripts read', () => {
  it('engines is the oldest Node.js src/cli/node-version.ts accepts, and nodeToolchain a maintained line newer than it', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8'));
    assert.equal(pkg.engines.node, `>=${OLDEST_NODE.major}.${OLDEST_NODE.minor}`);
    assert.match(pkg.nodeToolchain, /^\d+$/);
    assert.ok(Number(pkg.nodeToolchain) > OLDEST_NODE.major && Number(pkg.nodeToolchain) % 2 === 0, pkg.nodeToolchain);
  });
});

describe(`scripts/node-env.sh on an old Node.js (${OLD_NODE}, ${OLD_VERSION ?? 'none'})`, { skip: toolchainSkip() }, () => {
  let folder: string;
  before(() => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'formgate-toolchain-'));
  });
  after(() => fs.rmSync(folder, { recursive: true, force: true }));

  /** `sh -c '. scripts/node-env.sh && node -p process.version'` as an npm script runs it, on the old Node.js. */
  function choose(name: string, env: Record<string, string>, checkedAgoMs = 0) {
    const cache = path.join(folder, name);
    const seeded = env.EMPTY_CACHE ? null : seedNodeCache(cache, checkedAgoMs);
    const run = spawnSync('/bin/sh', ['-c', '. scripts/node-env.sh && node -p process.version'], {
      cwd: PROJECT_ROOT,
      env: { PATH: oldNodePath(), HOME: folder, FORMGATE_NODE_CACHE: cache, ...env },
      encoding: 'utf8',
      timeout: 30_000,
    });
    return { status: run.status, stdout: run.stdout, stderr: run.stderr, seeded, cache };
  }

  it('switches to the cached Node.js of the toolchain line, saying so in one line, without asking the registry', () => {
    const run = choose('fresh', { npm_config_registry: NO_REGISTRY });
    assert.deepEqual(
      { status: run.status, stdout: run.stdout, stderr: run.stderr },
      { status: 0, stdout: `v${run.seeded!.version}\n`, stderr: switchLine(OLD_VERSION!, run.seeded!.folder) },
    );
  });

  it('under `npm ci` (prepare), the line says what npm’s engine warnings above it are about', () => {
    const run = choose('prepare', { npm_lifecycle_event: 'prepare' });
    const note = "; npm's EBADENGINE lines above are about the Node.js npm itself runs on";
    assert.equal(run.stderr, switchLine(OLD_VERSION!, run.seeded!.folder, note));
  });

  it('asks the registry again after a day, and keeps the cached Node.js when it does not answer (offline)', () => {
    const run = choose('stale', { npm_config_registry: NO_REGISTRY }, 2 * DAY_MS);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, `v${run.seeded!.version}\n`);
    assert.equal(run.stderr, switchLine(OLD_VERSION!, run.seeded!.folder, ' (the registry did not answer: the newest one cached)'));
    const stamp = fs.statSync(path.join(run.cache, `.checked-${TOOLCHAIN_LINE}`));
    assert.ok(Date.now() - stamp.mtimeMs < DAY_MS, 'not asked again before tomorrow');
  });

  it('stops, saying why, when nothing is cached and the registry does not answer', () => {
    const run = choose('empty', { npm_config_registry: NO_REGISTRY, EMPTY_CACHE: '1' });
    assert.equal(run.status, 1);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, new RegExp(`Node\\.js v${OLD_VERSION!.replaceAll('.', '\\.')} is older than 22\\.12 and Node\\.js 24 could not be fetched`));
  });

  it('FORMGATE_NODE_TOOLCHAIN=local: the machine’s Node.js or nothing, with the words of src/cli/node-version.ts', () => {
    const run = choose('local', { FORMGATE_NODE_TOOLCHAIN: 'local' });
    assert.deepEqual(
      { status: run.status, stdout: run.stdout, stderr: run.stderr },
      { status: 1, stdout: '', stderr: `${unsupportedNodeMessage(OLD_VERSION!)}\n` },
    );
  });

  it('refuses a FORMGATE_NODE_TOOLCHAIN it does not know', () => {
    const run = choose('typo', { FORMGATE_NODE_TOOLCHAIN: 'locale' });
    assert.deepEqual(
      { status: run.status, stdout: run.stdout, stderr: run.stderr },
      { status: 2, stdout: '', stderr: "formgate: FORMGATE_NODE_TOOLCHAIN is auto (the default) or local, not 'locale'\n" },
    );
  });

  it('keeps a Node.js that is new enough, silently', () => {
    const run = choose('new-enough', { PATH: `${path.dirname(process.execPath)}${path.delimiter}${oldNodePath()}` });
    assert.deepEqual({ status: run.status, stdout: run.stdout, stderr: run.stderr }, { status: 0, stdout: `${process.version}\n`, stderr: '' });
  });
});
