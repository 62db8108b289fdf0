import { ProblemError, storageUnavailable } from '../errors.js';

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
