import { spawnSync } from 'node:child_process';
import { writeSync } from 'node:fs';

// Counting a regular expression's work, not timing it (issue 39, item 0): a test file runs itself
// again in a child process with V8's backtrack counter on. Any single match that backtracks more
// than the bound is handed to V8's linear engine, which says so on stdout, so the parent sees every
// match that went past it and which case ran it. The same count on any machine. NOTE: V8 counts only
// patterns its linear engine can run (no back-references or look-behinds).

/** Backtracks one match may take: 2^20, four per character of the largest input (256 KB); the patterns these tests replaced took hundreds of millions. */
export const MAX_BACKTRACKS = 1_048_576;
const CHILD = 'FORMGATE_BACKTRACK_CHILD';
const TRACE_LINE = 'Experimental execution';
const CASE_MARK = '<<case>> ';

/** Whether this process is the child that counts backtracks. */
export const countingBacktracks = process.env[CHILD] === '1';

/** In the child, marks on stdout (synchronously, in order with V8's lines) which case the next matches belong to. */
export function markCase(name: string): void {
  if (countingBacktracks) writeSync(1, `${CASE_MARK}${name}\n`);
}

/** What the child saw: the cases it marked, and every match past the bound with the case it belongs to. */
export interface Backtracks {
  status: number | null;
  cases: number;
  over: string[];
  output: string;
}

/** Runs the test file `file` in a child process that counts backtracks, with `env` added. */
export function runCountingBacktracks(file: string, env: Record<string, string> = {}): Backtracks {
  const child = spawnSync(
    process.execPath,
    [
      '--enable-experimental-regexp-engine-on-excessive-backtracks',
      `--regexp-backtracks-before-fallback=${MAX_BACKTRACKS}`,
      '--trace-experimental-regexp-engine',
      '--import',
      'tsx',
      '--test-reporter=dot',
      file,
    ],
    { env: { ...process.env, ...env, [CHILD]: '1' }, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 300_000 },
  );
  let current = '(before any case)';
  const over: string[] = [];
  let cases = 0;
  for (const line of child.stdout.split('\n')) {
    if (line.startsWith(CASE_MARK)) {
      current = line.slice(CASE_MARK.length);
      cases++;
    } else if (line.includes(TRACE_LINE)) over.push(`${current}: ${line.slice(0, 300)}`);
  }
  return { status: child.status, cases, over, output: `${child.stdout.slice(-2000)}${child.stderr.slice(-2000)}` };
}
