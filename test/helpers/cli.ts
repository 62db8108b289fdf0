import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildConfig } from '../../src/config/config.js';
import { openContext } from '../../src/context.js';
import type { Scope } from '../../src/domain/scopes.js';
import type { BuiltProgram } from './built-program.js';
import type { TestDatabase } from './database.js';

const execFileAsync = promisify(execFile);

/** The project folder: the CLI runs from there so that `--import tsx` resolves. */
export const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** How `formgate` is started: from src/ by default; test/bundle.test.ts runs the built bundle. */
export const FROM_SOURCE = ['--import', 'tsx', 'src/main.ts'];

/**
 * The environment of a child `formgate`: this process's, without any FORMGATE_* variable of the
 * caller's shell or the test runner's context, plus the test database and `extra`.
 */
export function cliEnv(database: TestDatabase, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith('FORMGATE_') || key === 'NODE_TEST_CONTEXT') continue;
    env[key] = value;
  }
  // recipients' confirmation off as in testConfig: a child's notifications go to made-up addresses;
  // no drain window (nothing balances these children): the tests of the window set one themselves
  return {
    ...env,
    FORMGATE_DATABASE_URL: database.url,
    FORMGATE_DATA_DIR: database.dataDir,
    FORMGATE_CONFIRM_RECIPIENTS: 'off',
    FORMGATE_DRAIN_WINDOW: '0',
    ...extra,
  };
}

/**
 * A load sent from this one test process stands for many visitors: no per-visitor rate limit, and no
 * cap on one address's connections (a busy machine's stall of a second keeps more than the default
 * 100 open at once, and the server rightly closes the 101st: "fetch failed").
 */
export const MANY_VISITORS_FROM_ONE_ADDRESS = {
  FORMGATE_RATE_LIMIT_SUBMIT: 'off',
  FORMGATE_RATE_LIMIT_API: 'off',
  FORMGATE_MAX_CONNECTIONS_PER_ADDRESS: '0',
} as const;

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

const running = new Set<ChildProcess>();

/** Runs `formgate <args>` to completion; a non-zero exit is a result, not an error. */
export async function runCli(env: NodeJS.ProcessEnv, args: string[], program = FROM_SOURCE): Promise<CliResult> {
  const promise = execFileAsync(process.execPath, [...program, ...args], { cwd: PROJECT_ROOT, env, timeout: 20_000 });
  const child = promise.child;
  running.add(child);
  try {
    const { stdout, stderr } = await promise;
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: unknown; stdout?: string; stderr?: string; signal?: string };
    if (typeof e.code === 'number') return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
    throw new Error(`formgate ${args.join(' ')} did not finish (signal ${e.signal ?? 'none'}): ${e.stderr ?? ''}`, { cause: error });
  } finally {
    running.delete(child);
  }
}

/** Kills every `runCli` child still running (for after() hooks). */
export function killRunningCli(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}

/** One line the server printed: the raw text and, when it is JSON (pino), the parsed object. */
export interface LogLine {
  raw: string;
  json: Record<string, any> | null;
}

export interface ServerProcess {
  child: ChildProcess;
  lines: LogLine[];
  /** Resolves with the first line (already printed or to come) matching `predicate`; rejects at the deadline or on exit. */
  waitForLine(predicate: (line: LogLine) => boolean, what: string, timeoutMs?: number): Promise<LogLine>;
  /** Resolves once the process has exited and its output is fully read; rejects at the deadline. */
  waitForExit(timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** SIGKILL if still running (for after() hooks). */
  kill(): void;
}

/** Starts `formgate serve` as a child process and follows its stdout line by line. */
export function spawnServe(env: NodeJS.ProcessEnv, program = FROM_SOURCE): ServerProcess {
  return followProcess(spawn(process.execPath, [...program, 'serve'], { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] }));
}

/** Follows a child process (its stdout piped) that runs a server: `npm start` as well as spawnServe's. */
export function followProcess(child: ChildProcess): ServerProcess {
  const lines: LogLine[] = [];
  let stderr = '';
  let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of [...listeners]) listener();
  };

  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  createInterface({ input: child.stdout! }).on('line', (raw) => {
    let json: Record<string, any> | null = null;
    try {
      const parsed: unknown = JSON.parse(raw);
      if (parsed !== null && typeof parsed === 'object') json = parsed as Record<string, any>;
    } catch {
      json = null;
    }
    lines.push({ raw, json });
    notify();
  });
  child.once('close', (code, signal) => {
    exit = { code, signal };
    notify();
  });

  function waitFor<T>(check: () => T | undefined, onExit: () => Error | undefined, timeoutMs: number, what: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const listener = () => {
        const found = check();
        if (found !== undefined) return done(() => resolve(found));
        if (exit) {
          const error = onExit();
          if (error) return done(() => reject(error));
        }
      };
      const timer = setTimeout(
        () =>
          done(() =>
            reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; stderr: ${stderr}; stdout: ${lines.map((l) => l.raw).join('\n')}`)),
          ),
        timeoutMs,
      );
      const done = (settle: () => void) => {
        clearTimeout(timer);
        listeners.delete(listener);
        settle();
      };
      listeners.add(listener);
      listener();
    });
  }

  return {
    child,
    lines,
    // hang detectors, not speed limits: a server on a busy machine may take its time (WAIT_DEADLINE_MS)
    waitForLine(predicate, what, timeoutMs = 30_000) {
      return waitFor(
        () => lines.find(predicate),
        () =>
          new Error(`the server exited (${JSON.stringify(exit)}) before printing ${what}; stderr: ${stderr}; stdout: ${lines.map((l) => l.raw).join('\n')}`),
        timeoutMs,
        what,
      );
    },
    waitForExit(timeoutMs = 30_000) {
      return waitFor(
        () => exit ?? undefined,
        () => undefined,
        timeoutMs,
        'the server to exit',
      );
    },
    stderr: () => stderr,
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/**
 * An upgraded account with one form, and a token when `token` is given, made through a context on
 * `database` that is closed again before any `formgate serve` starts on it.
 */
export async function seedUpgradedForm(
  database: TestDatabase,
  seed: { email: string; formName: string; token?: { name: string; scopes: Scope[] } },
): Promise<{ workspaceId: string; formId: string; token: string | null }> {
  const ctx = await openContext(buildConfig({ databaseUrl: database.url, dataDir: database.dataDir }));
  try {
    const { user, workspace } = await ctx.users.createUser(seed.email);
    await ctx.workspaces.setPlan(workspace.id, 'BUNDLE_50000', { tellOwners: false });
    const token = seed.token ? (await ctx.tokens.createToken(user.id, seed.token)).secret : null;
    const form = await ctx.forms.createForm(user.id, workspace.id, { name: seed.formName });
    return { workspaceId: workspace.id, formId: form.id, token };
  } finally {
    await ctx.close();
  }
}

/**
 * A checkout to run `npm start` in: this package.json (older than the bundle, as in a checkout built
 * since, so `npm start` builds nothing), the scripts, and `dist` as the program just built, so that a
 * test never writes the project's own dist/. Remove it with `fs.rmSync(folder, { recursive: true })`.
 */
export function npmCheckout(name: string, bundle: BuiltProgram): string {
  const folder = path.join(PROJECT_ROOT, 'node_modules', '.cache', `formgate-${name}-${process.pid}`);
  fs.rmSync(folder, { recursive: true, force: true });
  fs.mkdirSync(folder, { recursive: true });
  fs.copyFileSync(path.join(PROJECT_ROOT, 'package.json'), path.join(folder, 'package.json'));
  fs.utimesSync(path.join(folder, 'package.json'), new Date(2020, 0, 1), new Date(2020, 0, 1));
  fs.symlinkSync(path.join(PROJECT_ROOT, 'scripts'), path.join(folder, 'scripts'));
  fs.symlinkSync(path.dirname(bundle.program[0]!), path.join(folder, 'dist'));
  return folder;
}

/**
 * `npm start` in a checkout of npmCheckout's, this Node.js first on PATH, followed as spawnServe's
 * server is; `detached` gives it a process group of its own (a terminal's foreground job, or a
 * systemd unit's), so that a signal can go to the whole group.
 */
export function spawnNpmStart(folder: string, env: NodeJS.ProcessEnv, detached: boolean): ServerProcess {
  return followProcess(
    spawn('npm', ['start'], {
      cwd: folder,
      env: { ...env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}` },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached,
    }),
  );
}
