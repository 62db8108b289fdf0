import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { Redis } from 'ioredis';

/**
 * A redis-server of the test's own on a free loopback port, that the test may kill, pause and start
 * again on the same port (the shared development Redis at 6379 is never touched). Nothing is saved.
 */
export interface PrivateRedis {
  url: string;
  port: number;
  /** Stops the server with `signal` and waits for it to exit. */
  stop(signal: 'SIGTERM' | 'SIGKILL'): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  /** SIGSTOP: the port still accepts connections, but nothing is answered. */
  pause(): void;
  /** SIGCONT after `pause`. */
  resume(): void;
  /** A client of its own, for the test to look at the keys. */
  client(): Redis;
  /** Stops the server if it runs; for after() hooks. */
  close(): Promise<void>;
}

/** A free port on 127.0.0.1, as the kernel hands one out (closed again at once). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

const START_DEADLINE_MS = 10_000;

/** Starts a private redis-server (`redis-server` on the PATH); rejects if it is not ready within 10 s. */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const clients: Redis[] = [];

  async function start(): Promise<void> {
    const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    // a test process that dies without its after() hooks leaves no redis-server behind
    const killOnExit = () => proc.kill('SIGKILL');
    process.once('exit', killOnExit);
    proc.once('exit', () => process.off('exit', killOnExit));
    let output = '';
    proc.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    proc.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      const settle = (error: Error | null) => {
        clearTimeout(timer);
        proc.stdout!.off('data', onOutput);
        proc.off('exit', onExit);
        proc.off('error', settle);
        if (!error) return resolve();
        proc.kill('SIGKILL');
        reject(error);
      };
      const timer = setTimeout(() => settle(new Error(`redis-server on ${port} was not ready within ${START_DEADLINE_MS} ms:\n${output}`)), START_DEADLINE_MS);
      const onExit = (code: number | null) => settle(new Error(`redis-server on ${port} exited (${code}):\n${output}`));
      const onOutput = () => {
        if (output.includes('Ready to accept connections')) settle(null);
      };
      proc.on('error', settle);
      proc.on('exit', onExit);
      proc.stdout!.on('data', onOutput);
    });
  }

  async function stop(signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
    const proc = child;
    child = null;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill('SIGCONT'); // a paused server cannot act on SIGTERM
    proc.kill(signal);
    await exited;
  }

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    start,
    pause: () => void child?.kill('SIGSTOP'),
    resume: () => void child?.kill('SIGCONT'),
    client() {
      const redis = new Redis(`redis://127.0.0.1:${port}`, { maxRetriesPerRequest: 1, connectTimeout: 1_000 });
      redis.on('error', () => undefined);
      clients.push(redis);
      return redis;
    },
    async close() {
      for (const redis of clients) redis.disconnect();
      await stop('SIGKILL');
    },
  };
}
