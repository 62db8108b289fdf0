/**
 * `npm run bench:compare -- <commit>`: HEAD against an earlier commit or release, in alternation
 * on one machine (bench/README.md, "Comparing two commits"). Each is built in a worktree of its own
 * (kept in the temporary folder for the next comparison, with its node_modules; never the main
 * checkout, which measured slower than a worktree of the same commit), and both run
 * `npm run bench` with this checkout's Node. Uncommitted changes are not measured. Each round runs both sides,
 * the first side alternating, so that a drift of the machine falls on both alike. Prints each
 * figure's runs, the ratio of the medians with its spread, and whether the difference is beyond
 * noise; writes the same to bench/results/compare-<date>.json.
 *
 * FORMGATE_BENCH_ROUNDS (default 3; 5 tells a smaller difference), FORMGATE_BENCH_ONLY (default
 * submit,list) and FORMGATE_BENCH_DIALECTS (default sqlite,postgres) choose what runs.
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BENCH_DIR, REPO_DIR } from './lib/children.js';
import { betterOf, type Comparison, compare, figuresOf, formatComparisons } from './lib/compare-figures.js';

interface Side {
  name: string;
  dir: string;
  runs: Map<string, number>[];
}

const rounds = Number(process.env.FORMGATE_BENCH_ROUNDS ?? '3');
const benchEnv = {
  ...process.env,
  FORMGATE_BENCH_ONLY: process.env.FORMGATE_BENCH_ONLY ?? 'submit,list',
  FORMGATE_BENCH_DIALECTS: process.env.FORMGATE_BENCH_DIALECTS ?? 'sqlite,postgres',
};

function say(message: string): void {
  process.stderr.write(`[bench:compare ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

const git = (args: string[], cwd = REPO_DIR) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

/** The earlier commit's worktree, made (and its packages installed) the first time. */
function worktreeOf(commit: string): string {
  const dir = path.join(os.tmpdir(), `formgate-bench-${commit.slice(0, 12)}`);
  if (!fs.existsSync(path.join(dir, 'package.json'))) {
    say(`making a worktree of ${commit.slice(0, 12)} in ${dir}`);
    fs.rmSync(dir, { recursive: true, force: true });
    git(['worktree', 'prune']);
    git(['worktree', 'add', '--detach', dir, commit]);
  }
  if (!fs.existsSync(path.join(dir, 'node_modules'))) {
    say(`installing its packages (npm ci) with Node ${process.version}`);
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  return dir;
}

/** Runs `npm run bench` in a side's folder and reads the figures of the results file it wrote. */
async function runBench(side: Side): Promise<void> {
  say(`${side.name}: npm run bench (${benchEnv.FORMGATE_BENCH_ONLY}; ${benchEnv.FORMGATE_BENCH_DIALECTS})`);
  const child = spawn('npm', ['run', '--silent', 'bench'], { cwd: side.dir, env: benchEnv, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  const written = /written to (\S+\.json)/.exec(out);
  if (code !== 0 || !written) throw new Error(`npm run bench in ${side.dir} failed (exit ${code}):\n${out.slice(-2000)}`);
  const results = JSON.parse(fs.readFileSync(path.resolve(side.dir, written[1]!), 'utf8')).results;
  side.runs.push(figuresOf(results));
}

async function main(): Promise<void> {
  const asked = process.argv[2];
  if (!asked || !Number.isInteger(rounds) || rounds < 2) {
    process.stderr.write('usage: npm run bench:compare -- <commit, tag or branch>   (FORMGATE_BENCH_ROUNDS ≥ 2)\n');
    process.exit(2);
  }
  const commit = git(['rev-parse', '--verify', `${asked}^{commit}`]);
  const head = git(['rev-parse', 'HEAD']);
  const dirty = git(['status', '--porcelain', '--untracked-files=no']) !== '';
  if (dirty) say('uncommitted changes are not measured: HEAD is the last commit');
  const baseName = asked.length > 12 ? asked.slice(0, 12) : asked;
  const base: Side = { name: baseName, dir: worktreeOf(commit), runs: [] };
  const current: Side = { name: `HEAD ${head.slice(0, 12)}`, dir: worktreeOf(head), runs: [] };
  for (let round = 0; round < rounds; round++) {
    say(`round ${round + 1} of ${rounds}`);
    for (const side of round % 2 === 0 ? [base, current] : [current, base]) await runBench(side);
  }
  const keys = [...base.runs[0]!.keys()].filter((key) => current.runs.every((run) => run.has(key)) && base.runs.every((run) => run.has(key)));
  const comparisons: Comparison[] = keys.map((key) =>
    compare(
      key,
      base.runs.map((run) => run.get(key)!),
      current.runs.map((run) => run.get(key)!),
      betterOf(key),
    ),
  );
  process.stdout.write(`\n${current.name} against ${baseName} (${commit.slice(0, 12)}), ${rounds} rounds, alternating:\n\n`);
  process.stdout.write(`${formatComparisons(baseName, comparisons)}\n\n`);
  const changed = comparisons.filter((c) => c.verdict !== 'within noise');
  process.stdout.write(
    changed.length === 0
      ? 'No figure moved beyond noise.\n'
      : `Beyond noise: ${changed.map((c) => `${c.figure} ${c.verdict} (${c.ratio.toFixed(3)})`).join('; ')}.\n`,
  );
  const file = path.join(BENCH_DIR, 'results', `compare-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const record = {
    base: { asked, commit },
    head: { commit: head },
    rounds,
    only: benchEnv.FORMGATE_BENCH_ONLY,
    dialects: benchEnv.FORMGATE_BENCH_DIALECTS,
    comparisons,
  };
  fs.writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
  process.stdout.write(
    `written to ${path.relative(process.cwd(), file)}; the worktree stays in ${base.dir} for the next comparison (git worktree remove ${base.dir})\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:compare failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
