import { execFileSync } from 'node:child_process';
import os from 'node:os';
import Database from 'better-sqlite3';
import pg from 'pg';
import { PG_SERVER_URL } from './databases.js';
import { REPO_DIR } from './children.js';

/** What the figures were measured on: they mean little without it. */
export async function describeMachine(): Promise<Record<string, unknown>> {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memoryMb: Math.round(os.totalmem() / 2 ** 20),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    sqlite: (new Database(':memory:').prepare('select sqlite_version() as v').get() as { v: string }).v,
    postgres: await postgresVersion(),
    commit: gitCommit(),
    loadAverage: os.loadavg().map((n) => Math.round(n * 100) / 100),
  };
}

async function postgresVersion(): Promise<string | null> {
  const client = new pg.Client({ connectionString: `${PG_SERVER_URL}/postgres`, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    return ((await client.query('SHOW server_version')).rows[0] as { server_version: string }).server_version;
  } catch {
    return null;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function gitCommit(): string | null {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_DIR, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: REPO_DIR, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${commit} (src modified)` : commit;
  } catch {
    return null;
  }
}
