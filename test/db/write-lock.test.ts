import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { Database } from '../../src/db/database.js';
import { TEST_DIALECT } from '../helpers/database.js';

// Another process writing to the same SQLite file (`formgate import`, an admin command, a second
// instance) must never make one of the server's transactions fail: a transaction that began as a
// reader and turns writer after the other process committed gets SQLITE_BUSY at once, whatever the
// busy timeout. So every transaction begins with the write lock, except the move's one long reading.
// The other process is a second connection here, with no busy timeout, so that it says at once
// whether the lock was held: what the test checks is the order SQLite decided, not a clock.
describe('SQLite transactions and another process writing', { skip: TEST_DIALECT !== 'sqlite' }, () => {
  let dir: string;
  let file: string;
  let other: SqliteDatabase.Database;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'formgate-write-lock-'));
    file = path.join(dir, 'formgate.db');
    const setup = new SqliteDatabase(file);
    setup.pragma('journal_mode = WAL');
    setup.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    setup.close();
    other = new SqliteDatabase(file);
    other.pragma('busy_timeout = 0');
  });
  after(() => {
    other.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Reads, lets the other process try to write, then writes; says what happened to each. */
  async function readThenWrite(database: Database): Promise<{ ours: 'committed' | string; theirs: 'committed' | string }> {
    let theirs = 'not tried';
    try {
      await database.transaction(async (trx) => {
        await sql`SELECT count(*) FROM notes`.execute(trx);
        try {
          other.prepare("INSERT INTO notes (body) VALUES ('theirs')").run();
          theirs = 'committed';
        } catch (error) {
          theirs = (error as { code?: string }).code ?? String(error);
        }
        await sql`INSERT INTO notes (body) VALUES ('ours')`.execute(trx);
      });
      return { ours: 'committed', theirs };
    } catch (error) {
      return { ours: (error as { code?: string }).code ?? String(error), theirs };
    }
  }

  it('a transaction holds the write lock from its start, so a write by another process cannot make it fail', async () => {
    const database = Database.open({ dialect: 'sqlite', file });
    try {
      assert.deepEqual(await readThenWrite(database), { ours: 'committed', theirs: 'SQLITE_BUSY' });
    } finally {
      await database.destroy();
    }
  });

  it("the move's reading handle holds nothing back: the other process writes while it reads", async () => {
    const database = Database.open({ dialect: 'sqlite', file }, { readerTransactions: true });
    try {
      const outcome = await readThenWrite(database);
      assert.equal(outcome.theirs, 'committed');
      // and this is why the server may not begin as a reader: its write after theirs fails at once
      assert.match(outcome.ours, /^SQLITE_BUSY/);
    } finally {
      await database.destroy();
    }
  });
});
