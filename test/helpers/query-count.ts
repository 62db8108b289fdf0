import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';

// Every query a PostgreSQL connection of this process sends, or a SQLite statement it runs, while a count is open, in order.
let recording: string[] | null = null;
// The same statements' parameters, in the same order, while statementsDuring records.
let recordingValues: unknown[][] | null = null;
let installed = false;
/** Told of each statement's rows (read, or changed) while set: test/helpers/loop-blocks.ts's watchRowsPerTurn. */
let onRows: ((rows: number) => void) | null = null;

/** Calls `listener` with the rows of each statement from now on (installQueryCounter first); answers what stops it. */
export function watchStatementRows(listener: (rows: number) => void): () => void {
  if (!installed) throw new Error('watchStatementRows: call installQueryCounter() before the app starts');
  onRows = listener;
  return () => {
    onRows = null;
  };
}

/**
 * Records the text of each query sent through pg's clients (the service's pool included), and of
 * each SQLite statement run, while `fn` runs: how many round trips a request costs, on a count rather
 * than a stopwatch. NOTE: installed on pg.Client's
 * prototype, so it must run before the app's connections open (database.ts binds query at connect).
 */
export function installQueryCounter(): void {
  if (installed) return;
  installed = true;
  installSqliteCounter();
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text: string; values?: unknown[] };
    recording?.push(typeof first === 'string' ? first : first.text);
    recordingValues?.push(typeof first === 'string' ? ((args[1] as unknown[] | undefined) ?? []) : (first.values ?? []));
    const result = (query as (...a: unknown[]) => unknown).apply(this, args);
    if (onRows && result instanceof Promise)
      void result.then(
        (answer: { rowCount?: number | null; rows?: unknown[] }) => onRows?.(Math.max(answer.rowCount ?? 0, answer.rows?.length ?? 0)),
        () => undefined,
      );
    return result;
  } as typeof query;
}

/**
 * The same for SQLite: each run of a prepared statement (Kysely runs every query as one), its SQL
 * recorded. On the Statement prototype, so statements prepared before the count are counted too.
 */
function installSqliteCounter(): void {
  const probe = new SqliteDatabase(':memory:');
  const statement = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<'all' | 'run' | 'get' | 'iterate', (...args: unknown[]) => unknown>;
  probe.close();
  for (const method of ['all', 'run', 'get', 'iterate'] as const) {
    const original = statement[method];
    statement[method] = function (this: { source: string }, ...args: unknown[]) {
      recording?.push(this.source);
      recordingValues?.push(args);
      const result = original.apply(this, args);
      if (onRows) onRows(method === 'all' ? (result as unknown[]).length : method === 'run' ? (result as { changes: number }).changes : 1);
      return result;
    };
  }
}

/** The queries sent while `fn` ran, on either database (installQueryCounter first). */
export async function queriesDuring(fn: () => Promise<unknown>): Promise<string[]> {
  if (!installed) throw new Error('queriesDuring: call installQueryCounter() before the app starts');
  const seen: string[] = [];
  recording = seen;
  try {
    await fn();
  } finally {
    recording = null;
  }
  return seen;
}

/** The statements sent while `fn` ran, each with its parameters: to EXPLAIN them as they ran (installQueryCounter first). */
export async function statementsDuring(fn: () => Promise<unknown>): Promise<{ text: string; values: unknown[] }[]> {
  const values: unknown[][] = [];
  recordingValues = values;
  try {
    const texts = await queriesDuring(fn);
    return texts.map((text, i) => ({ text, values: values[i] ?? [] }));
  } finally {
    recordingValues = null;
  }
}
