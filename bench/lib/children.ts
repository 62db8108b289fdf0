import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const BENCH_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
export const REPO_DIR = path.dirname(BENCH_DIR);

/** A helper process of the benchmark (baseline server, sinks) and the first JSON line it printed. */
export interface Helper<Info> {
  child: ChildProcess;
  info: Info;
  stop(): Promise<void>;
}

/** Starts `bench/<script>` under tsx and waits for the JSON line it prints once it listens. */
export async function startHelper<Info>(script: string, args: string[] = []): Promise<Helper<Info>> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(BENCH_DIR, script), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  return { child, info: JSON.parse(line) as Info, stop: () => stopChild(child) };
}

/** Runs a process to its end and returns what it printed; a non-zero exit is an error. */
export async function runToEnd(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'], env });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`${args.join(' ')} exited with ${code}`);
  return out;
}

/** SIGTERM, then waits for the exit (SIGKILL after 30 s). */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(timer);
}

/**
 * A TCP port nothing listens on right now, below the range the system hands out to outgoing
 * connections: a port from that range (as `listen(0)` gives) could be taken as the local end of one
 * of the load's own connections before the server listens on it (the likely cause of a run whose
 * serve exited before answering).
 */
export async function freePort(): Promise<number> {
  const ephemeralFrom = Math.max(11_000, Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0]) || 32_768);
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = 10_000 + Math.floor(Math.random() * (ephemeralFrom - 10_000));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port between 10000 and ${ephemeralFrom}`);
}

function canListen(port: number): Promise<boolean> {
  const server = net.createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
