import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, REPO_DIR, stopChild } from './children.js';

export interface FormgateOptions {
  databaseUrl: string;
  dataDir: string;
  smtpUrl?: string;
  /** Extra FORMGATE_* variables. */
  env?: Record<string, string>;
}

/** A running `formgate serve`, as a user starts it (rate limits off). */
export interface Formgate {
  pid: number;
  apiOrigin: string;
  submitOrigin: string;
  /** From spawning `formgate serve` to the first answered request. */
  startMs: number;
  /** The highest resident set size of the process so far (Linux VmHWM), in MB. */
  peakRssMb(): number | null;
  /** CPU time the process has used so far (user + system, all its threads), in ms. */
  cpuMs(): number | null;
  stop(): Promise<void>;
}

const READY_DEADLINE_MS = 60_000;

/** Starts `node dist/main.js serve`; its log goes to `<dataDir>/serve.log`. */
export async function startFormgate(options: FormgateOptions): Promise<Formgate> {
  const [port, submitPort] = [await freePort(), await freePort()];
  fs.mkdirSync(options.dataDir, { recursive: true });
  const log = fs.openSync(path.join(options.dataDir, 'serve.log'), 'a');
  const env = {
    PATH: process.env.PATH,
    FORMGATE_DATABASE_URL: options.databaseUrl,
    FORMGATE_DATA_DIR: options.dataDir,
    FORMGATE_PORT: String(port),
    FORMGATE_SUBMIT_PORT: String(submitPort),
    FORMGATE_RATE_LIMIT_API: 'off',
    FORMGATE_RATE_LIMIT_SUBMIT: 'off',
    // a search's own limit (120 a minute per caller) would answer the search load 429 after its first two seconds
    FORMGATE_RATE_LIMIT_SEARCH: 'off',
    FORMGATE_ALLOW_PRIVATE_WEBHOOKS: 'true',
    ...(options.smtpUrl ? { FORMGATE_SMTP_URL: options.smtpUrl } : {}),
    // FORMGATE_BENCH_METRICS=on measures the cost of counting (docs/architecture.md, "Metrics")
    ...(process.env.FORMGATE_BENCH_METRICS ? { FORMGATE_METRICS: process.env.FORMGATE_BENCH_METRICS } : {}),
    ...options.env,
  };
  const started = performance.now();
  // cwd is the data folder, so no .env of the repository is read
  const child = spawn(process.execPath, [...serveFlags(), path.join(REPO_DIR, 'dist', 'main.js'), 'serve'], {
    cwd: options.dataDir,
    env,
    stdio: ['ignore', log, log],
  });
  fs.closeSync(log);
  const submitOrigin = `http://127.0.0.1:${submitPort}`;
  await firstAnswer(child, `${submitOrigin}/healthz`).catch((error: unknown) => {
    // the data folder goes when the run ends: say now why serve did not come up
    console.error(`the end of serve.log:\n${fs.readFileSync(path.join(options.dataDir, 'serve.log'), 'utf8').slice(-3000)}`);
    throw error;
  });
  const startMs = performance.now() - started;
  return {
    pid: child.pid!,
    apiOrigin: `http://127.0.0.1:${port}`,
    submitOrigin,
    startMs,
    peakRssMb: () => peakRssMb(child.pid!),
    cpuMs: () => cpuMs(child.pid!),
    stop: () => stopChild(child),
  };
}

/**
 * The node flags `npm start` gives serve (read from package.json, so the two cannot drift apart),
 * then FORMGATE_BENCH_SERVE_FLAGS (e.g. `--cpu-prof` to see where the time goes).
 */
function serveFlags(): string[] {
  const { scripts } = JSON.parse(fs.readFileSync(path.join(REPO_DIR, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const startFlags = scripts.start.split(' ').filter((word) => word.startsWith('--'));
  return [...startFlags, ...(process.env.FORMGATE_BENCH_SERVE_FLAGS ?? '').split(' ').filter(Boolean)];
}

/** Polls `url` until it answers 200; fails if the process exits first. */
async function firstAnswer(child: ChildProcess, url: string): Promise<void> {
  const deadline = performance.now() + READY_DEADLINE_MS;
  while (performance.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`formgate serve exited with ${child.exitCode} before answering`);
    if ((await statusOf(url)) === 200) return;
    await sleep(2);
  }
  await stopChild(child);
  throw new Error(`formgate serve did not answer ${url} within ${READY_DEADLINE_MS} ms`);
}

function statusOf(url: string): Promise<number> {
  return new Promise((resolve) => {
    const request = http.get(url, { agent: false }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('error', () => resolve(0));
  });
}

function peakRssMb(pid: number): number | null {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round(Number(match[1]) / 1024) : null;
  } catch {
    return null;
  }
}

// Linux reports CPU time in clock ticks, 100 a second on every common build.
const TICK_MS = 10;

function cpuMs(pid: number): number | null {
  try {
    // the fields after the command's closing parenthesis; utime and stime are the 12th and 13th
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return null;
  }
}

/** The server's CPU time per request of a load (warm-up included, as its CPU is), in µs. */
export function cpuPerRequestUs(cpuMs: number | null, figures: { answered2xx: number; warmup2xx: number; errors: number }): number | null {
  const requests = figures.answered2xx + figures.warmup2xx + figures.errors;
  return cpuMs === null || requests === 0 ? null : Math.round((cpuMs * 1000) / requests);
}
