import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from './cli.js';

const run = promisify(execFile);

export interface PreviousRelease {
  version: string;
  commit: string;
  /** What spawnServe and runCli run: that release's built main.js. */
  program: string[];
  remove(): void;
}

async function git(...args: string[]): Promise<string> {
  return (await run('git', args, { cwd: PROJECT_ROOT, maxBuffer: 64 * 1024 * 1024 })).stdout.trim();
}

async function versionAt(commit: string): Promise<string> {
  return JSON.parse(await git('show', `${commit}:package.json`)).version;
}

/**
 * The previous release: the last commit before package.json took its current version (a release
 * is the state of main when the next version starts; CHANGELOG.md says so). Needs the git history.
 */
export async function previousReleaseCommit(): Promise<{ commit: string; version: string }> {
  const current = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')).version as string;
  if ((await git('rev-parse', '--is-shallow-repository')) === 'true')
    throw new Error('the rolling-upgrade test needs the whole git history: this clone is shallow');
  const introduced = (await git('log', '--format=%H', '--reverse', `-S"version": "${current}"`, '--', 'package.json')).split('\n')[0];
  if (!introduced) throw new Error(`no commit set package.json's version to ${current}`);
  const commit = await git('rev-parse', `${introduced}^`);
  const version = await versionAt(commit);
  if (version === current) throw new Error(`the commit before ${introduced} is ${current} too`);
  return { commit, version };
}

/**
 * That release's program, built from its own sources in a folder of its own. Its packages are
 * this checkout's when every dependency it names is here at the same version (a release adds
 * packages more often than it changes them); otherwise it gets its own `npm ci`.
 */
export async function buildPreviousRelease(): Promise<PreviousRelease> {
  const { commit, version } = await previousReleaseCommit();
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), `formgate-${version}-`));
  const remove = () => fs.rmSync(folder, { recursive: true, force: true });
  try {
    const archive = path.join(folder, 'source.tar');
    await git('archive', '--format=tar', '-o', archive, commit);
    await run('tar', ['-xf', archive, '-C', folder]);
    fs.rmSync(archive);
    const theirs = JSON.parse(fs.readFileSync(path.join(folder, 'package.json'), 'utf8'));
    const ours = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8'));
    const same = Object.entries({ ...theirs.dependencies, ...theirs.devDependencies }).every(
      ([name, wanted]) => (ours.dependencies?.[name] ?? ours.devDependencies?.[name]) === wanted,
    );
    if (same) fs.symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(folder, 'node_modules'));
    // from npm's cache without asking the registry again: this checkout's own `npm ci` has just filled it
    else await run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: folder, timeout: 300_000 });
    const main = path.join(folder, 'dist', 'main.js');
    await run(process.execPath, ['scripts/build.mjs', main], { cwd: folder, timeout: 60_000 });
    return { version, commit, program: [main], remove };
  } catch (error) {
    remove();
    throw error;
  }
}

/** The migrations of this checkout that `commit` did not have: what the new program applies. */
export async function migrationsSince(commit: string): Promise<string[]> {
  const isMigration = (name: string) => /^\d{4}-.*\.ts$/.test(name);
  const before = new Set((await git('ls-tree', '--name-only', `${commit}:src/db/migrations`)).split('\n').filter(isMigration));
  return fs.readdirSync(path.join(PROJECT_ROOT, 'src/db/migrations')).filter((name) => isMigration(name) && !before.has(name));
}
