// Retention per form (issue 27): a form's submissions older than its retentionDays go hourly, with
// their deliveries, in bounded batches, on both databases; other forms and workspaces keep theirs.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SubmissionStatus } from '../../src/db/schema/submission.js';
import { UNDER_WAY_GRACE_MS } from '../../src/db/submission-deletion.js';
import { applyRetention, RETENTION_BATCH, startSubmissionRetention } from '../../src/jobs/submission-retention.js';
import { enqueueJob } from '../../src/jobs/outbox.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';
import { collectingLogger } from '../helpers/log-lines.js';
import { insertMany, insertSubmission } from '../helpers/export.js';
import { createAccount, createForm } from '../helpers/fixtures.js';
import { installQueryCounter, queriesDuring } from '../helpers/query-count.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 27, 12);
/** The statements of one batch (8 today: its select, the deletes of its rows and deliveries, the transaction), with room to spare: one per row would pass it at once. */
const STATEMENTS_PER_BATCH = 12;

describe(`submission retention per form (${TEST_DIALECT})`, () => {
  let app: TestApp;

  before(async () => {
    installQueryCounter();
    app = await startApp();
  });
  after(() => app.close());

  const db = () => app.ctx.database.db;
  const exists = async (id: string) => (await db().selectFrom('submissions').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;

  /** A delivery of the submission, with one try, in `status` (a pending one leased until `leaseUntil`). */
  async function delivery(submissionId: string, status: 'done' | 'pending', leaseUntil: number | null = null): Promise<string> {
    const id = await enqueueJob(db(), { kind: 'webhook', payload: { url: 'https://example.com/hook', fields: { email: 'x' } }, submissionId, runAt: NOW });
    await db().updateTable('jobs').set({ status, leaseUntil, attempts: 1 }).where('id', '=', id).execute();
    await db()
      .insertInto('jobAttempts')
      .values({ id: `${id}-try`, jobId: id, startedAt: NOW, finishedAt: NOW, outcome: status === 'done' ? 'ok' : 'retry' })
      .execute();
    return id;
  }

  async function jobExists(id: string): Promise<boolean> {
    const job = await db().selectFrom('jobs').select('id').where('id', '=', id).executeTakeFirst();
    const tries = await db().selectFrom('jobAttempts').select('id').where('jobId', '=', id).execute();
    if (!job) assert.equal(tries.length, 0, 'no try outlives its job');
    return job !== undefined;
  }

  it('deletes a form’s submissions past its retention (inbox, spam and held) with their deliveries, and nothing else', async () => {
    const account = await createAccount(app);
    const other = await createAccount(app);
    const form = await createForm(app, account, { retentionDays: 30 });
    const longer = await createForm(app, account, { retentionDays: 365 });
    const kept = await createForm(app, account);
    const othersForm = await createForm(app, other);
    const old = NOW - 31 * DAY;
    const statuses: SubmissionStatus[] = ['accepted', 'spam', 'held'];
    const expired = await Promise.all(statuses.map((status) => insertSubmission(app, form, { email: 'ann@example.com' }, old, status)));
    const recent = await insertSubmission(app, form, { email: 'bob@example.com' }, NOW - 29 * DAY);
    const notYet = await insertSubmission(app, longer, { n: 1 }, old);
    const forever = await insertSubmission(app, kept, { n: 2 }, NOW - 4000 * DAY);
    const othersOld = await insertSubmission(app, othersForm, { n: 3 }, NOW - 4000 * DAY);
    const sent = await delivery(expired[0]!, 'done');
    const keptDelivery = await delivery(recent, 'done');
    const workspaceBefore = await db().selectFrom('workspaces').select('submissionsUsed').where('id', '=', account.workspaceId).executeTakeFirstOrThrow();

    const result = await applyRetention(app.ctx.database, NOW);
    assert.deepEqual(result, { deleted: 3, forms: 1, busy: 0, more: false });
    for (const id of expired) assert.equal(await exists(id), false);
    for (const id of [recent, notYet, forever, othersOld]) assert.equal(await exists(id), true);
    assert.equal(await jobExists(sent), false, 'the deleted submission’s delivery and its tries went with it');
    assert.equal(await jobExists(keptDelivery), true);
    const workspaceAfter = await db().selectFrom('workspaces').select('submissionsUsed').where('id', '=', account.workspaceId).executeTakeFirstOrThrow();
    assert.deepEqual(workspaceAfter, workspaceBefore, 'the allowance used stays, as when a submission is deleted by hand');

    assert.deepEqual(await applyRetention(app.ctx.database, NOW), { deleted: 0, forms: 0, busy: 0, more: false }, 'a second run finds nothing');
    // the retention turned off (null) keeps everything from then on
    const patched = await app.api('PATCH', `/forms/${form.id}`, { token: account.token, body: { retentionDays: null } });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.retentionDays, null);
    assert.deepEqual(await applyRetention(app.ctx.database, NOW + 340 * DAY), { deleted: 1, forms: 1, busy: 0, more: false }, 'only the 365-day form’s');
    assert.equal(await exists(recent), true);
  });

  it('leaves a submission whose delivery is being tried now, and takes it once the try is over', async () => {
    const account = await createAccount(app);
    const form = await createForm(app, account, { retentionDays: 1 });
    const submission = await insertSubmission(app, form, { email: 'ann@example.com' }, NOW - 2 * DAY);
    const job = await delivery(submission, 'pending', NOW + 30_000);

    assert.equal((await applyRetention(app.ctx.database, NOW)).deleted, 0);
    assert.equal(await exists(submission), true);
    assert.equal(await jobExists(job), true, 'a try under way is never cut from under its worker');

    const later = NOW + 30_000 + UNDER_WAY_GRACE_MS + 1;
    assert.equal((await applyRetention(app.ctx.database, later)).deleted, 1, 'a lease long lapsed: its worker is gone');
    assert.equal(await exists(submission), false);
    assert.equal(await jobExists(job), false);
  });

  it('goes in batches, stops at its cap and says there is more; the next run goes on', async () => {
    const account = await createAccount(app);
    const form = await createForm(app, account, { retentionDays: 7 });
    await insertMany(app, form, 25, (i) => ({ n: i }), NOW - 10 * DAY);
    assert.deepEqual(await applyRetention(app.ctx.database, NOW, { batchSize: 10, maxBatches: 2 }), { deleted: 20, forms: 1, busy: 0, more: true });
    assert.deepEqual(await applyRetention(app.ctx.database, NOW, { batchSize: 10, maxBatches: 2 }), { deleted: 5, forms: 1, busy: 0, more: false });
    const left = await db().selectFrom('submissions').select('id').where('formId', '=', form.id).execute();
    assert.equal(left.length, 0);
  });

  it('lets several instances run at once: each submission is deleted once, and no run fails', async () => {
    const account = await createAccount(app);
    const form = await createForm(app, account, { retentionDays: 7 });
    await insertMany(app, form, 600, (i) => ({ n: i }), NOW - 10 * DAY);
    const runs = await Promise.all([1, 2, 3].map(() => applyRetention(app.ctx.database, NOW, { batchSize: 50, maxBatches: 100 })));
    assert.equal(
      runs.reduce((sum, run) => sum + run.deleted, 0),
      600,
    );
    const left = await db().selectFrom('submissions').select('id').where('formId', '=', form.id).execute();
    assert.equal(left.length, 0);
  });

  it('deletes tens of thousands in batches, in statements linear in the batches', async () => {
    const account = await createAccount(app);
    const form = await createForm(app, account, { retentionDays: 7 });
    const keep = await createForm(app, account);
    await insertMany(app, form, 20_000, (i) => ({ email: `p${i}@example.com` }), NOW - 10 * DAY);
    await insertMany(app, keep, 2_000, (i) => ({ email: `p${i}@example.com` }), NOW - 10 * DAY);
    // counted, not timed: a run stops at its batch limit, and each batch is a few statements whatever the table holds
    let result: Awaited<ReturnType<typeof applyRetention>> | null = null;
    const statements = await queriesDuring(async () => {
      result = await applyRetention(app.ctx.database, NOW, { batchSize: RETENTION_BATCH, maxBatches: 199 });
    });
    assert.deepEqual(result, { deleted: 19_900, forms: 1, busy: 0, more: true });
    assert.ok(statements.length <= 199 * STATEMENTS_PER_BATCH, `${statements.length} statements for 199 batches`);
    assert.deepEqual(await applyRetention(app.ctx.database, NOW), { deleted: 100, forms: 1, busy: 0, more: false });
    const left = await db().selectFrom('submissions').select('id').where('formId', '=', keep.id).execute();
    assert.equal(left.length, 2_000);
  });
});

describe(`the hourly retention in a running instance (${TEST_DIALECT})`, () => {
  it('runs at start, logs what it deleted and counts it on /metrics', async () => {
    const app = await startApp({ metrics: 'on' });
    const { logger, lines } = collectingLogger();
    const stop = { run: () => {} };
    try {
      const account = await createAccount(app);
      const form = await createForm(app, account, { retentionDays: 1 });
      await insertMany(app, form, 3, (i) => ({ n: i }), Date.now() - 3 * DAY);
      stop.run = startSubmissionRetention(app.ctx, logger);
      const line = await eventually(async () => lines.find((l) => /retention/.test(l.msg)), 'the retention’s log line');
      assert.equal(line.msg, 'deleted submissions past their form’s retention');
      assert.equal(line.deleted, 3);
      const metrics = await app.ctx.metrics!.registry.metrics();
      assert.match(metrics, /^formgate_submissions_deleted_total\{reason="retention"\} 3$/m);
      assert.match(metrics, /^formgate_submissions_deleted_total\{reason="erasure"\} 0$/m);
    } finally {
      stop.run();
      await app.close();
    }
  });
});
