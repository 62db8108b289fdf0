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

/**
 * Restores a part of a custom-format dump, in one transaction: all of it or nothing. `schema`: every
 * definition and no row (nothing a definition holds runs: no table has a row to check, index or
 * fire on); `data`: the entries of `list` (rows, sequences' values, then indexes, keys and triggers), in its order.
 * Never owners or grants: the restoring role owns what it restores.
 */
export async function pgRestore(url: string, file: string, part: { schema: true } | { data: true; list: string }): Promise<void> {
  const { dbname, env } = libpqConnection(url);
  // the list may hold definitions (indexes, keys, triggers) as well as rows: no --data-only, the list says what
  const which = 'schema' in part ? ['--schema-only'] : [`--use-list=${part.list}`];
  await runTool('pg_restore', ['--no-owner', '--no-privileges', '--exit-on-error', '--single-transaction', ...which, `--dbname=${dbname}`, file], env);
}

/** One entry of a dump's table of contents (`pg_restore --list`): its id, kind (TABLE, TRIGGER, …), schema and tag (its name). */
export interface DumpEntry {
  line: string;
  kind: string;
  schema: string;
  tag: string;
}

// the kinds of entry pg_dump writes whose name has two words, longest first
const TWO_WORD_KINDS = [
  'SEQUENCE OWNED BY',
  'MATERIALIZED VIEW DATA',
  'TABLE DATA',
  'SEQUENCE SET',
  'FK CONSTRAINT',
  'EVENT TRIGGER',
  'DEFAULT ACL',
  'MATERIALIZED VIEW',
  'LARGE OBJECT',
  'FOREIGN TABLE',
  'FOREIGN DATA WRAPPER',
  'USER MAPPING',
  'TEXT SEARCH CONFIGURATION',
  'TEXT SEARCH DICTIONARY',
  'TEXT SEARCH PARSER',
  'TEXT SEARCH TEMPLATE',
  'OPERATOR CLASS',
  'OPERATOR FAMILY',
  'ROW SECURITY',
  'PUBLICATION TABLE',
  'PUBLICATION TABLES IN SCHEMA',
  'SHELL TYPE',
  'ACCESS METHOD',
  'BLOB METADATA',
];

/** Every entry of a custom-format dump's table of contents, read without restoring anything. */
export async function dumpEntries(file: string): Promise<DumpEntry[]> {
  const listing = await runTool('pg_restore', ['--list', file], process.env);
  const entries: DumpEntry[] = [];
  for (const line of listing.split('\n')) {
    const match = /^\d+; \d+ \d+ (.*)$/.exec(line);
    if (!match) continue;
    const rest = match[1]!;
    const kind = TWO_WORD_KINDS.find((k) => rest.startsWith(`${k} `)) ?? rest.split(' ')[0]!;
    const words = rest.slice(kind.length + 1).split(' ');
    // "<schema> <tag…> <owner>": the owner is the last word (empty when the dump has none)
    const schema = words[0] ?? '';
    const tag = words.slice(1, -1).join(' ');
    entries.push({ line, kind, schema, tag });
  }
  return entries;
}

/** The migrations a Formgate dump records (its kysely_migration rows), read without restoring anything. */
export async function dumpMigrations(file: string): Promise<string[]> {
  const script = await runTool('pg_restore', ['--data-only', '--table=kysely_migration', '--file=-', file], process.env);
  const copy = /^COPY \S*kysely_migration .*FROM stdin;\n([\s\S]*?)^\\\.$/m.exec(script);
  if (!copy) return [];
  return copy[1]!
    .split('\n')
    .filter((row) => row !== '')
    .map((row) => row.split('\t')[0]!);
}

/** The table names a custom-format dump holds (`pg_restore --list`), to tell a Formgate backup from another dump. */
export async function dumpTables(file: string): Promise<string[]> {
  const listing = await runTool('pg_restore', ['--list', file], process.env);
  return [...listing.matchAll(/^\d+; \d+ \d+ TABLE \S+ (\S+) /gm)].map((m) => m[1]!);
}
