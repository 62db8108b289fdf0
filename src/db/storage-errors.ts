import { ProblemError } from '../errors.js';

// SQLite's extended result codes, as better-sqlite3 names them (`SQLITE_IOERR_WRITE`, …): the disk is
// full, the files turned read-only or cannot be opened, an I/O error, or the lock not had in time.
const SQLITE_UNAVAILABLE = /^SQLITE_(FULL|READONLY|IOERR|CANTOPEN|BUSY)(_|$)/;
// PostgreSQL's SQLSTATE classes: 08 connection exception, 53 insufficient resources (disk full,
// out of memory, too many connections), 57P01–57P03 the server shutting down or starting.
const POSTGRES_UNAVAILABLE = /^(08...|53...|57P0[123])$/;
// The socket to PostgreSQL failed; or a file (SQLite's WAL, flushed by db/wal-sync.ts) could not be written.
const SYSTEM_UNAVAILABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOSPC', 'EROFS', 'EDQUOT', 'EIO']);
const PG_CONNECTION_LOST = /^(Connection terminated|Client has encountered a connection error|Client was closed and is not queryable)/;

/**
 * Whether `error` says the database cannot take a write right now (a passing condition: the disk
 * full, the files read-only, the server gone or restarting), as opposed to a fault in the request or
 * the code. The one place that reads the drivers' errors: the submit surface, the API and the
 * dashboard all answer such a failure `503 storage_unavailable`.
 */
export function isStorageUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (SQLITE_UNAVAILABLE.test(code) || POSTGRES_UNAVAILABLE.test(code) || SYSTEM_UNAVAILABLE.has(code))) return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && PG_CONNECTION_LOST.test(message)) return true;
  }
  return false;
}

/** The catalogue's answer to such a failure: nothing was stored, try again. */
export function storageUnavailable(): ProblemError {
  return new ProblemError('storage_unavailable', 'The database could not take the write right now; nothing was stored. Try again in a moment.');
}

/** `error` as the problem it is answered with when it is a storage failure; anything else as it is. */
export function asStorageProblem(error: unknown): unknown {
  return !(error instanceof ProblemError) && isStorageUnavailable(error) ? storageUnavailable() : error;
}

/** Awaits a bookkeeping write; answers false instead of failing when the database cannot write right now. */
export async function unlessStorageUnavailable(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (isStorageUnavailable(error)) return false;
    throw error;
  }
}

/** How often, at most, requests refused for a database that cannot write are logged (then counted). */
const STORAGE_LOG_INTERVAL_MS = 10_000;

/**
 * Logs failures of a database that cannot write without flooding: a full disk refuses every write,
 * and a stack trace per request (or per poll of a worker) would fill the log as fast as visitors
 * arrive, and with it maybe the very disk that is full. The first failure is logged in full, then
 * at most one a `intervalMs`, saying how many more failed meanwhile.
 */
export class StorageFailureLog {
  private lastAt = Number.NEGATIVE_INFINITY;
  private refused = 0;

  constructor(
    private readonly message = 'the database cannot take writes: requests are answered 503 storage_unavailable until it can',
    private readonly intervalMs = STORAGE_LOG_INTERVAL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  note(log: { error(details: object, message: string): void }, err: unknown, details: object = {}): void {
    const now = this.now();
    if (now - this.lastAt < this.intervalMs) {
      this.refused++;
      return;
    }
    log.error({ err, ...details, alsoFailedSinceLastLine: this.refused }, this.message);
    this.lastAt = now;
    this.refused = 0;
  }
}
