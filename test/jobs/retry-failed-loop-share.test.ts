// Issue 38, item 3: "Retry all failed" of a form queued every failed delivery again in one statement,
// which on SQLite held the event loop for as long as it ran (a form's failed webhooks pile up while a
// receiver is down). It now goes 500 a statement, giving the loop back between them.
//
// What is asserted (see test/helpers/loop-blocks.ts, watchRowsPerTurn): the most rows one turn of the
// event loop reads or changes while 50,000 failed deliveries are queued again is a batch's worth, not
// all of them (a count, the same on any machine), and every one of them was queued, once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { enqueueJobs } from '../../src/jobs/outbox.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { insertMany } from '../helpers/export.js';
import { type Account, createAccount, createForm } from '../helpers/fixtures.js';
import { watchRowsPerTurn } from '../helpers/loop-blocks.js';
import { installQueryCounter } from '../helpers/query-count.js';

const JOBS = 50_000;
/** A batch of 500 ids selected, then queued again: a turn's worth, with room for the statements around it. */
const MAX_ROWS_PER_TURN = 1_000;

describe(`"Retry all failed" gives the event loop back (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let owner: Account;
  let form: { id: string; workspaceId: string };

  before(async () => {
    installQueryCounter();
    app = await startApp();
    owner = await createAccount(app);
    form = await createForm(app, owner, { name: 'Hooked' });
    await insertMany(app, form, JOBS, (i) => ({ message: `Hello ${i}` }), Date.now() - JOBS, false);
    const ids = (await app.ctx.database.db.selectFrom('submissions').select('id').where('formId', '=', form.id).execute()).map((row) => row.id);
    await app.ctx.database.transaction(async (trx) => {
      for (let from = 0; from < ids.length; from += 1000) {
        await enqueueJobs(
          trx,
          ids.slice(from, from + 1000).map((submissionId) => ({ kind: 'webhook', payload: { url: 'https://example.com/hook' }, submissionId })),
        );
      }
    });
    await app.ctx.database.db.updateTable('jobs').set({ status: 'failed', attempts: 8 }).execute();
  });
  after(() => app.close());

  it('queues 50,000 failed deliveries of a form again without holding the loop', async () => {
    const rows = watchRowsPerTurn();
    const queued = await app.ctx.deliveries.retryForMember(owner.userId, form.id, { allFailed: true }).finally(() => rows.stop());
    const seen = rows.stop();
    const figures = `the busiest turn handled ${seen.mostRows} rows, over ${seen.turns} turns`;
    assert.equal(new Set(queued).size, JOBS, `every failed delivery queued once: ${figures}`);
    const failed = await app.ctx.database.db.selectFrom('jobs').select('id').where('status', '=', 'failed').execute();
    assert.equal(failed.length, 0);
    assert.ok(seen.mostRows <= MAX_ROWS_PER_TURN, figures);
  });
});
