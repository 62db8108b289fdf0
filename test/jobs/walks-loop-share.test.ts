// Issue 38, item 3: every walk over a tenant's rows gives the event loop back every few milliseconds
// (domain/loop-slice.ts), not only exports: retention, the spam and delivery-record purges, an
// erasure and its count, deleting a form.
// Before, on SQLite each ran as one unbroken chain of awaits (better-sqlite3 answers through Kysely as
// microtasks), so a run over 20,000 rows held the loop for all of it.
//
// What is asserted: the most rows the statements of one turn of the event loop read or change while
// the walk runs, with every walk's slice at 0 (test/helpers/loop-blocks.ts watchRowsPerTurn): one
// batch at most (a window of 1,000 ids, a transaction of a few hundred rows), where before a turn held
// the whole walk. A count, not a stopwatch: the same on any machine.
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { after, before, describe, it } from 'node:test';
import { purgeFinishedJobs } from '../../src/jobs/finished-jobs.js';
import { enqueueJobs } from '../../src/jobs/outbox.js';
import { applyRetention } from '../../src/jobs/submission-retention.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { insertMany } from '../helpers/export.js';
import { type Account, createAccount, createForm } from '../helpers/fixtures.js';
import { watchRowsPerTurn } from '../helpers/loop-blocks.js';
import { installQueryCounter } from '../helpers/query-count.js';

const ROWS = 20_000;
/** The largest batch any walk reads or changes in one turn: the erasure's window of 1,000 ids. */
const MAX_ROWS_PER_TURN = 1_000;
const DAY = 86_400_000;

/** Runs `walk` counting rows per turn; answers what it answered and the most rows one turn held. */
async function watched<T>(walk: () => Promise<T>): Promise<{ value: T; mostRows: number; turns: number }> {
  const rows = watchRowsPerTurn();
  try {
    const value = await walk();
    const seen = rows.stop();
    return { value, mostRows: seen.mostRows, turns: seen.turns };
  } finally {
    rows.stop();
  }
}

describe(`walks over a tenant’s rows give the event loop back (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let owner: Account;

  before(async () => {
    installQueryCounter();
    app = await startApp();
    owner = await createAccount(app);
  });
  after(() => app.close());

  it('an erasure’s count and the erasure itself, over 20,000 submissions that may all hold the address', async () => {
    const form = await createForm(app, owner, { name: 'People' });
    // every search text holds `ann@example.com` (jo…ann@example.com is another person): each row is read and checked
    const email = (i: number) => (i % 1000 === 0 ? 'ann@example.com' : `jo${i}ann@example.com`);
    await insertMany(app, form, ROWS, (i) => ({ email: email(i), message: `Hello from ${i}` }), Date.now() - ROWS);
    const preview = await watched(() => app.ctx.erasure.preview(owner.userId, owner.workspaceId, 'ann@example.com'));
    assert.equal(preview.value.submissions, ROWS / 1000);
    assert.ok(preview.mostRows <= MAX_ROWS_PER_TURN, `the count’s busiest turn handled ${preview.mostRows} rows (${preview.turns} turns)`);
    const erased = await watched(() => app.ctx.erasure.erase(owner.userId, owner.workspaceId, 'ann@example.com'));
    assert.equal(erased.value.deleted, ROWS / 1000);
    assert.ok(erased.mostRows <= MAX_ROWS_PER_TURN, `the erasure’s busiest turn handled ${erased.mostRows} rows (${erased.turns} turns)`);
  });

  it('retention deleting 20,000 submissions', async () => {
    const form = await createForm(app, owner, { name: 'Kept a day' });
    await insertMany(app, form, ROWS, (i) => ({ message: `Old ${i}` }), Date.now() - 30 * DAY, false);
    await app.ctx.database.db.updateTable('forms').set({ retentionDays: 1 }).where('id', '=', form.id).execute();
    const run = await watched(() => applyRetention(app.ctx.database));
    assert.equal(run.value.deleted, ROWS);
    assert.ok(run.mostRows <= MAX_ROWS_PER_TURN, `retention’s busiest turn handled ${run.mostRows} rows (${run.turns} turns)`);
  });

  it('the spam purge deleting 20,000 quarantined submissions', async () => {
    const form = await createForm(app, owner, { name: 'Spammed' });
    await insertMany(app, form, ROWS, (i) => ({ message: `Spam ${i}` }), Date.now() - 60 * DAY, false);
    await app.ctx.database.db
      .updateTable('submissions')
      .set({ status: sql.lit('spam') })
      .where('formId', '=', form.id)
      .execute();
    const run = await watched(() => app.ctx.submissions.purgeExpiredSpam(30 * DAY));
    assert.equal(run.value, ROWS);
    assert.ok(run.mostRows <= MAX_ROWS_PER_TURN, `the purge’s busiest turn handled ${run.mostRows} rows (${run.turns} turns)`);
  });

  it('deleting a form of 50,000 submissions', async () => {
    const form = await createForm(app, owner, { name: 'Deleted' });
    // more rows than the others: one cascading delete (before the fix) cost about 5 ms of CPU per 1,000
    await insertMany(app, form, 50_000, (i) => ({ message: `Gone ${i}` }), Date.now() - 50_000);
    const run = await watched(() => app.ctx.forms.deleteForm(owner.userId, form.id));
    const left = await app.ctx.database.db.selectFrom('submissions').select('id').where('formId', '=', form.id).execute();
    assert.equal(left.length, 0);
    assert.equal(await app.ctx.database.db.selectFrom('forms').select('id').where('id', '=', form.id).executeTakeFirst(), undefined);
    assert.ok(run.mostRows <= MAX_ROWS_PER_TURN, `the deletion’s busiest turn handled ${run.mostRows} rows (${run.turns} turns)`);
  });

  it('the delivery-record purge removing 50,000 finished deliveries', async () => {
    // more rows than the others: one statement per run (before the fix) cost about 3.5 ms of CPU per 1,000
    const JOBS = 50_000;
    const old = Date.now() - 60 * DAY;
    await app.ctx.database.transaction(async (trx) => {
      for (let from = 0; from < JOBS; from += 1000) {
        await enqueueJobs(
          trx,
          Array.from({ length: 1000 }, () => ({ kind: 'webhook', payload: { url: 'https://example.com/hook' }, runAt: old })),
        );
      }
    });
    await app.ctx.database.db.updateTable('jobs').set({ status: 'done', runAt: old, updatedAt: old }).execute();
    const run = await watched(() => purgeFinishedJobs(app.ctx.database, Date.now() - 30 * DAY));
    assert.equal(run.value.jobs, JOBS);
    assert.ok(run.mostRows <= MAX_ROWS_PER_TURN, `the purge’s busiest turn handled ${run.mostRows} rows (${run.turns} turns)`);
  });
});
