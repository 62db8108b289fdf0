import { spawn } from 'node:child_process';

/** pg_dump or pg_restore failed, or is not installed: the message says which and what to do. */
export class PgToolError extends Error {
  constructor(
    message: string,
    /** The program is not installed: the setup's fault, not the database's. */
    readonly missing = false,
  ) {
    super(message);
    this.name = 'PgToolError';
  }
}

/**
 * The connection for libpq's tools: the URL without its password (which `ps` would show), and the
 * password in PGPASSWORD. Options only node-postgres reads are dropped: libpq refuses them.
 */
function libpqConnection(url: string): { dbname: string; env: NodeJS.ProcessEnv } {
  const u = new URL(url);
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (u.password) env.PGPASSWORD = decodeURIComponent(u.password);
  u.password = '';
  for (const key of ['ssl', 'uselibpqcompat']) u.searchParams.delete(key);
  return { dbname: u.toString(), env };
}

/** Runs one of PostgreSQL's client programs; its stderr becomes the error's message. */
function runTool(tool: 'pg_dump' | 'pg_restore', args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(tool, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') {
        reject(
          new PgToolError(
            `${tool} is not installed (or not on PATH): it comes with PostgreSQL's client programs, the package postgresql-client ` +
              '(apt install postgresql-client, of the same major version as the server or newer). docs/operations.md, "Backing up and restoring", gives the recipe.',
            true,
          ),
        );
      } else reject(new PgToolError(`${tool} could not start: ${error.message}`));
    });
    child.on('close', (code) => {
      if (code === 0) resolve(stdout);
      else reject(new PgToolError(`${tool} failed (exit ${code}): ${stderr.trim() || 'no message'}`));
    });
  });
}

/** `pg_dump --format=custom` of the database, from the snapshot `snapshot` (exported by an open transaction) when given. */
export async function pgDump(url: string, file: string, snapshot?: string): Promise<void> {
  const { dbname, env } = libpqConnection(url);
  await runTool(
    'pg_dump',
    ['--format=custom', '--no-owner', '--no-privileges', `--file=${file}`, ...(snapshot ? [`--snapshot=${snapshot}`] : []), `--dbname=${dbname}`],
    env,
  );
}

/** Restores a custom-format dump into an empty database, in one transaction: all of it or nothing. */
export async function pgRestore(url: string, file: string): Promise<void> {
  const { dbname, env } = libpqConnection(url);
  await runTool('pg_restore', ['--no-owner', '--no-privileges', '--exit-on-error', '--single-transaction', `--dbname=${dbname}`, file], env);
}

/** The table names a custom-format dump holds (`pg_restore --list`), to tell a Formgate backup from another dump. */
export async function dumpTables(file: string): Promise<string[]> {
  const listing = await runTool('pg_restore', ['--list', file], process.env);
  return [...listing.matchAll(/^\d+; \d+ \d+ TABLE \S+ (\S+) /gm)].map((m) => m[1]!);
}
