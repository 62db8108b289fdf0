import pg from 'pg';

// Every query a PostgreSQL connection of this process sends while a count is open, in order.
let recording: string[] | null = null;
let installed = false;

/**
 * Records the text of each query sent through pg's clients (the service's pool included) while `fn`
 * runs: how many round trips a request costs on PostgreSQL. NOTE: installed on pg.Client's
 * prototype, so it must run before the app's connections open (database.ts binds query at connect).
 */
export function installQueryCounter(): void {
  if (installed) return;
  installed = true;
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text: string };
    recording?.push(typeof first === 'string' ? first : first.text);
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
}

/** The queries sent while `fn` ran (installQueryCounter first). */
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
