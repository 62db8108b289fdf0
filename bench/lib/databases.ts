import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export type BenchDialect = 'sqlite' | 'postgres';

/** The PostgreSQL server the benchmark creates its databases on (`formgate_bench_*`). */
export const PG_SERVER_URL = process.env.FORMGATE_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';

export interface BenchDatabase {
  dialect: BenchDialect;
  url: string;
  /** The instance's data folder (the SQLite file, its log, its outbox). */
  dataDir: string;
}

const created: string[] = [];
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'formgate-bench-'));

/** A new, empty database named `name` on `dialect` (a PostgreSQL one of that name is dropped first). */
export async function freshDatabase(dialect: BenchDialect, name: string): Promise<BenchDatabase> {
  const dataDir = path.join(root, `${dialect}-${name}`);
  fs.mkdirSync(dataDir, { recursive: true });
  if (dialect === 'sqlite') return { dialect, url: `sqlite:${path.join(dataDir, 'formgate.db')}`, dataDir };
  const database = `formgate_bench_${name.replace(/[^a-z0-9]/g, '_')}`;
  await adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await adminQuery(`CREATE DATABASE ${database}`);
  created.push(database);
  return { dialect, url: `${PG_SERVER_URL}/${database}`, dataDir };
}

/** Whether PostgreSQL answers; the PostgreSQL scenarios are skipped (and say so) when it does not. */
export async function postgresAnswers(): Promise<boolean> {
  try {
    await adminQuery('SELECT 1');
    return true;
  } catch {
    return false;
  }
}

/** Removes the temporary data folders and drops the PostgreSQL databases of this run. */
export async function removeDatabases(): Promise<void> {
  fs.rmSync(root, { recursive: true, force: true });
  for (const database of created.splice(0)) await adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: `${PG_SERVER_URL}/postgres`, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}
