import { createRequire } from 'node:module';
import type pg from 'pg';
import { MissingDatabaseError } from './database.js';

/** Databases every PostgreSQL server has, to connect to while the one wanted does not exist yet. */
const MAINTENANCE_DATABASES = ['postgres', 'template1'];

/** Whether `error`, or what caused it, is PostgreSQL's "database … does not exist" (3D000). */
export function isMissingPostgresDatabase(error: unknown): boolean {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e) if (e.code === '3D000') return true;
  return false;
}

/** `name` as a PostgreSQL identifier, quoted: a database may be called `Forms` or `form-gate`. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * Creates the PostgreSQL database `url` names, connected to the server's maintenance database with
 * the same role: `formgate migrate` and `formgate serve` set up the database they are given, as the
 * README says, where provisioning had to run `createdb` first. Made meanwhile by another instance:
 * fine. Refused (the role may not create databases): a MissingDatabaseError that says what to do.
 */
export async function createPostgresDatabase(url: string): Promise<string> {
  const driver = createRequire(import.meta.url)('pg') as typeof pg;
  const target = new URL(url);
  // no database in the URL: PostgreSQL takes the role's name, as libpq does
  const name = decodeURIComponent(target.pathname.slice(1)) || decodeURIComponent(target.username);
  let unreachable: unknown;
  for (const maintenance of MAINTENANCE_DATABASES) {
    const server = new URL(url);
    server.pathname = `/${maintenance}`;
    const client = new driver.Client({ connectionString: server.toString() });
    client.on('error', () => undefined);
    try {
      await client.connect();
    } catch (error) {
      unreachable = error;
      await client.end().catch(() => undefined);
      continue;
    }
    try {
      await client.query(`CREATE DATABASE ${quoteIdentifier(name)}`);
      return name;
    } catch (error) {
      if ((error as { code?: unknown }).code === '42P04') return name;
      throw new MissingDatabaseError(
        { dialect: 'postgres', url },
        `does not exist, and creating it failed (${(error as Error).message}): create it with \`createdb\` or give the role CREATEDB, then run \`formgate migrate\``,
      );
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  throw new MissingDatabaseError(
    { dialect: 'postgres', url },
    `does not exist, and neither the postgres nor the template1 database could be reached to create it (${(unreachable as Error).message}): create it with \`createdb\`, then run \`formgate migrate\``,
  );
}
