// pg 8 prints "Calling client.query() when the client is already executing a query" (a
// DeprecationWarning on stderr, which breaks JSON log parsing) whenever a query is queued on a busy
// client, and pg 9 will refuse it. Formgate never queues one: the pool's connections LISTEN before
// they are handed out, and the change feed asks its listener one question at a time (issue 38, item 20).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { Database } from '../../src/db/database.js';
import { createTestDatabase, TEST_DIALECT } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';

const TURNS = 300;

describe('pg query queue (postgres)', { skip: TEST_DIALECT !== 'postgres' && 'PostgreSQL only' }, () => {
  it('prints no deprecation while readings and writes arrive turn after turn on new connections', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    const database = await createTestDatabase();
    const db = Database.open({ dialect: 'postgres', url: database.url });
    try {
      await eventually(async () => db.changeFeedState() === 'listening', 'the change feed to listen');
      // one reading of a count and a few queries (new pool connections at first) on each of TURNS turns of the event loop,
      // so that a turn's question to the listener is asked while an earlier turn's is still unanswered
      const work: Promise<unknown>[] = [];
      for (let turn = 0; turn < TURNS; turn++) {
        work.push(db.changeCount('tokens'), sql`select ${turn}::int as n`.execute(db.db));
        await new Promise((resolve) => setImmediate(resolve));
      }
      await Promise.all(work);
      // a warning is emitted on the next tick after the call that earned it
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
      await db.destroy();
      await database.drop();
    }
    assert.deepEqual(warnings, []);
  });
});
