import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PROJECT_ROOT } from './cli.js';

export interface LoadOptions {
  /** Put in every marker, so markers are unique across runs and databases. */
  runId: string;
  /** The forms submitted to, in turn. */
  formIds: string[];
  /** Visitors submitting at once, each one submission after another. */
  concurrency: number;
  /** Each visitor's pause between submissions. */
  pauseMs: number;
  /** A bound: the load stops sending after this many, told to stop or not. */
  maxRequests: number;
  /** Source addresses are 127.<subnet>.x.y: give each suite its own. */
  subnet: number;
  /** The Host header, when the target is a proxy that picks its site by name. */
  host?: string;
}

/** What one request got: a success answer with the submission's id, a refusal (any other answer), or no answer. */
export interface LoadAnswer {
  marker: string;
  formId: string;
  target: string;
  fields: Record<string, string>;
  outcome: 'acknowledged' | 'refused' | 'connection-failed';
  status?: number;
  id?: string;
  detail?: string;
}

export interface LoadReport {
  sent: number;
  answers: LoadAnswer[];
}

export type LoadCommand = { type: 'targets'; urls: string[] } | { type: 'stop' };

export interface SubmitLoad {
  /** Where submissions go from now on (the submit surfaces' addresses), in turn. */
  setTargets(urls: string[]): void;
  /** Stops sending, waits for the requests in flight, and answers every answer recorded. */
  stop(deadlineMs?: number): Promise<LoadReport>;
  /** SIGKILL if still running (for after() hooks). */
  kill(): void;
}

const CHILD = fileURLToPath(new URL('./submit-load-child.ts', import.meta.url));

/** Starts the load process (test/helpers/submit-load-child.ts); it sends nothing until given targets. */
export function startSubmitLoad(options: LoadOptions): SubmitLoad {
  const child: ChildProcess = fork(CHILD, [JSON.stringify(options)], {
    cwd: PROJECT_ROOT,
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const report = new Promise<LoadReport>((resolve, reject) => {
    child.once('message', (message) => resolve(message as LoadReport));
    child.once('exit', (code, signal) => reject(new Error(`the load process exited (${code ?? signal}) before reporting`)));
  });
  report.catch(() => undefined);
  const send = (command: LoadCommand) => {
    if (child.connected) child.send(command);
  };
  return {
    setTargets: (urls) => send({ type: 'targets', urls }),
    async stop(deadlineMs = 20_000) {
      send({ type: 'stop' });
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the load process did not report within ${deadlineMs} ms`)), deadlineMs);
      });
      try {
        return await Promise.race([report, deadline]);
      } finally {
        clearTimeout(timer);
      }
    },
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
