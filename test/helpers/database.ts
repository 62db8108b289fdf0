import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** Which dialect this run of the suite uses: FORMGATE_TEST_DB=sqlite (default) or postgres. */
export const TEST_DIALECT: 'sqlite' | 'postgres' = process.env.FORMGATE_TEST_DB === 'postgres' ? 'postgres' : 'sqlite';

/** The server the PostgreSQL suite creates its databases on. */
export const TEST_PG_URL = process.env.FORMGATE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  url: string;
  dataDir: string;
  drop(): Promise<void>;
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** A fresh, empty database of the suite's dialect, and a data folder; `drop` removes both. */
export async function createTestDatabase(dialect = TEST_DIALECT): Promise<TestDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'formgate-test-'));
  if (dialect === 'sqlite') {
    return {
      url: `sqlite:${path.join(dataDir, 'formgate.db')}`,
      dataDir,
      drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const name = `formgate_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_PG_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return {
    url: withDatabase(TEST_PG_URL, name),
    dataDir,
    drop: async () => {
      const client = new pg.Client({ connectionString: TEST_PG_URL });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
