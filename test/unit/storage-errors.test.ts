import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { asStorageProblem, isStorageUnavailable, unlessStorageUnavailable } from '../../src/db/storage-errors.js';
import { StorageFailureLog } from '../../src/domain/storage-failure-log.js';
import { ProblemError } from '../../src/errors.js';

const withCode = (code: string, message = 'driver error') => Object.assign(new Error(message), { code });

describe('isStorageUnavailable: the drivers’ errors that mean "the database cannot take a write right now"', () => {
  it('recognises SQLite’s full, read-only, I/O, cannot-open and busy codes, extended or not', () => {
    for (const code of [
      'SQLITE_FULL',
      'SQLITE_READONLY',
      'SQLITE_READONLY_DBMOVED',
      'SQLITE_IOERR',
      'SQLITE_IOERR_WRITE',
      'SQLITE_IOERR_FSYNC',
      'SQLITE_CANTOPEN',
      'SQLITE_BUSY',
      'SQLITE_BUSY_SNAPSHOT',
    ]) {
      assert.equal(isStorageUnavailable(withCode(code)), true, code);
    }
  });

  it('recognises PostgreSQL’s connection, resource and shutdown SQLSTATEs, and lost sockets', () => {
    for (const code of [
      '08000',
      '08006',
      '08P01',
      '53100',
      '53200',
      '53300',
      '57P01',
      '57P02',
      '57P03',
      'ECONNREFUSED',
      'ECONNRESET',
      'EPIPE',
      'ENOSPC',
      'EROFS',
    ]) {
      assert.equal(isStorageUnavailable(withCode(code)), true, code);
    }
    for (const message of ['Connection terminated unexpectedly', 'Connection terminated', 'Client has encountered a connection error and is not queryable']) {
      assert.equal(isStorageUnavailable(new Error(message)), true, message);
    }
  });

  it('looks through an error’s causes', () => {
    assert.equal(isStorageUnavailable(new Error('could not store', { cause: withCode('SQLITE_FULL') })), true);
  });

  it('leaves faults of the request or the code alone', () => {
    for (const error of [
      withCode('SQLITE_CONSTRAINT_UNIQUE'),
      withCode('SQLITE_ERROR', 'no such table: x'),
      withCode('23505'),
      withCode('42P01'),
      withCode('57014'), // a statement cancelled (statement_timeout) is no outage
      new TypeError('x is undefined'),
      null,
      'SQLITE_FULL',
    ]) {
      assert.equal(isStorageUnavailable(error), false, String((error as { code?: string } | null)?.code ?? error));
    }
  });

  it('turns such an error into 503 storage_unavailable, and leaves problems and other errors as they are', () => {
    const problem = asStorageProblem(withCode('SQLITE_FULL'));
    assert.ok(problem instanceof ProblemError);
    assert.equal(problem.code, 'storage_unavailable');
    assert.equal(problem.status, 503);
    assert.match(problem.detail, /nothing was stored/);
    const other = new TypeError('bug');
    assert.equal(asStorageProblem(other), other);
    const refusal = new ProblemError('not_found', 'gone');
    assert.equal(asStorageProblem(refusal), refusal);
  });

  it('lets bookkeeping writes wait out such an error, and only such an error', async () => {
    assert.equal(await unlessStorageUnavailable(Promise.resolve()), true);
    assert.equal(await unlessStorageUnavailable(Promise.reject(withCode('SQLITE_FULL'))), false);
    await assert.rejects(unlessStorageUnavailable(Promise.reject(withCode('SQLITE_CONSTRAINT_UNIQUE'))), /driver error/);
  });

  it('logs the first failure of an outage in full, then one line a period counting the others', () => {
    let clock = 0;
    const lines: Record<string, unknown>[] = [];
    const failures = new StorageFailureLog('cannot write', 10_000, () => clock);
    const log = { error: (details: object) => void lines.push(details as Record<string, unknown>) };
    for (; clock < 25_000; clock += 100) failures.note(log, withCode('SQLITE_FULL'), { reqId: String(clock) });
    assert.deepEqual(
      lines.map(({ reqId, alsoFailedSinceLastLine }) => [reqId, alsoFailedSinceLastLine]),
      [
        ['0', 0],
        ['10000', 99],
        ['20000', 99],
      ],
    );
  });
});
