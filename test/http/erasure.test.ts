// Erasing a person through the API (an addition, issue 27): a preview that counts, then the deletion
// of every submission of the workspace holding the address, with its deliveries; nothing else.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SubmissionStatus } from '../../src/db/schema/submission.js';
import { newId } from '../../src/ids.js';
import { enqueueJob } from '../../src/jobs/outbox.js';
import { searchTextOf } from '../../src/services/search-text.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { assertAuthMatrix } from '../helpers/auth-matrix.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { insertMany, insertSubmission } from '../helpers/export.js';
import { type Account, createAccount, createForm } from '../helpers/fixtures.js';
import { assertJson, assertProblem, assertSameNotFound, assertValidation } from '../helpers/problems.js';
import { installQueryCounter, queriesDuring } from '../helpers/query-count.js';

/** Statements to walk 20,000 rows: 21 windows, a check of the few rows each window may hold, the statuses' empty windows and the access checks (about 50 today); one a row would be 20,000. */
const WALK_STATEMENTS = 80;

describe(`erasing a person through the API (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let account: Account;
  let other: Account;

  before(async () => {
    installQueryCounter();
    app = await startApp();
    account = await createAccount(app);
    other = await createAccount(app);
  });
  after(() => app.close());

  const db = () => app.ctx.database.db;
  const preview = (who: Account, workspaceId: string, body: unknown) =>
    app.api('POST', `/workspaces/${workspaceId}/erasure/preview`, { token: who.token, body });
  const erase = (who: Account, workspaceId: string, body: unknown) => app.api('POST', `/workspaces/${workspaceId}/erasure`, { token: who.token, body });
  const exists = async (id: string) => (await db().selectFrom('submissions').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;

  /** A submission whose address is only in its `_replyto` control, as a site that names its email field so sends it. */
  async function withReplyTo(form: { id: string; workspaceId: string }, address: string): Promise<string> {
    const id = newId();
    const data = { name: 'Ann' };
    await db()
      .insertInto('submissions')
      .values({
        id,
        formId: form.id,
        workspaceId: form.workspaceId,
        data: JSON.stringify(data),
        status: 'accepted',
        createdAt: Date.now(),
        searchText: searchTextOf(data),
        emailControls: JSON.stringify({ _replyto: address }),
      })
      .execute();
    return id;
  }

  async function delivery(submissionId: string, leaseUntil: number | null = null): Promise<string> {
    const id = await enqueueJob(db(), { kind: 'webhook', payload: { url: 'https://example.com/hook', fields: { email: 'ann@x.com' } }, submissionId });
    await db()
      .updateTable('jobs')
      .set({ status: leaseUntil === null ? 'done' : 'pending', leaseUntil, attempts: 1 })
      .where('id', '=', id)
      .execute();
    await db()
      .insertInto('jobAttempts')
      .values({ id: `${id}-try`, jobId: id, startedAt: 1, finishedAt: 2, outcome: 'ok' })
      .execute();
    return id;
  }

  it('previews the count, then deletes every submission holding the address (any field, any state) with its deliveries, and nothing else', async () => {
    const form = await createForm(app, account);
    const second = await createForm(app, account, { name: 'Jobs' });
    const othersForm = await createForm(app, other);
    const now = Date.now();
    const at = (status: SubmissionStatus, data: Record<string, unknown>, f = form) => insertSubmission(app, f, data, now, status);
    const holding = [
      await at('accepted', { email: 'Ann@X.com' }),
      await at('spam', { message: 'please write to ann@x.com.' }),
      await at('held', { contact: { emails: ['b@x.com', 'ann@x.com'] } }, second),
      await withReplyTo(second, 'ANN@x.com'),
    ];
    const notHolding = [
      await at('accepted', { email: 'joann@x.com' }),
      await at('accepted', { email: 'ann@x.com.au', note: 'hannah@x.com' }),
      await at('accepted', { email: 'bob@x.com' }),
    ];
    const othersSubmission = await at('accepted', { email: 'ann@x.com' }, othersForm);
    const sent = await delivery(holding[0]!);
    const keptDelivery = await delivery(notHolding[2]!);
    const used = await db().selectFrom('workspaces').select('submissionsUsed').where('id', '=', account.workspaceId).executeTakeFirstOrThrow();

    const counted = await preview(account, account.workspaceId, { email: '  ann@X.com ' });
    assertJson(counted, 200);
    assert.deepEqual(counted.body, { email: 'ann@x.com', submissions: 4 });
    for (const id of [...holding, ...notHolding, othersSubmission]) assert.equal(await exists(id), true, 'a preview deletes nothing');

    const erased = await erase(account, account.workspaceId, { email: 'ann@x.com' });
    assertJson(erased, 200);
    assert.deepEqual(erased.body, { email: 'ann@x.com', deleted: 4, remaining: 0 });
    for (const id of holding) assert.equal(await exists(id), false);
    for (const id of notHolding) assert.equal(await exists(id), true, 'joann@, ann@x.com.au and others stay');
    assert.equal(await exists(othersSubmission), true, 'another workspace’s submission holding the address stays');
    assert.equal(await db().selectFrom('jobs').select('id').where('id', '=', sent).executeTakeFirst(), undefined, 'its delivery went with it');
    assert.deepEqual(await db().selectFrom('jobAttempts').select('id').where('jobId', '=', sent).execute(), []);
    assert.ok(await db().selectFrom('jobs').select('id').where('id', '=', keptDelivery).executeTakeFirst());
    const usedAfter = await db().selectFrom('workspaces').select('submissionsUsed').where('id', '=', account.workspaceId).executeTakeFirstOrThrow();
    assert.deepEqual(usedAfter, used, 'the allowance used stays, as when a submission is deleted by hand');

    assert.deepEqual((await preview(account, account.workspaceId, { email: 'ann@x.com' })).body, { email: 'ann@x.com', submissions: 0 });
    assert.deepEqual((await erase(account, account.workspaceId, { email: 'ann@x.com' })).body, { email: 'ann@x.com', deleted: 0, remaining: 0 });
  });

  it('leaves a submission whose delivery is being sent right now, and says so', async () => {
    const form = await createForm(app, account);
    const id = await insertSubmission(app, form, { email: 'busy@x.com' }, Date.now());
    await delivery(id, Date.now() + 30_000);
    const erased = await erase(account, account.workspaceId, { email: 'busy@x.com' });
    assert.deepEqual(erased.body, { email: 'busy@x.com', deleted: 0, remaining: 1 });
    assert.equal(await exists(id), true);
  });

  it('walks a workspace of tens of thousands of submissions, finding each holder once', async () => {
    const form = await createForm(app, account);
    await insertMany(app, form, 20_000, (i) => ({ email: `p${i}@many.example`, note: i % 1000 === 7 ? 'cc P1@many.example' : '' }), Date.now() - 100_000);
    // counted, not timed: the walk reads the workspace a window (1,000 rows) at a time, so its statements grow with the windows, not the rows
    const walked = await queriesDuring(async () => {
      assert.deepEqual((await preview(account, account.workspaceId, { email: 'p1@many.example' })).body, { email: 'p1@many.example', submissions: 21 });
    });
    assert.ok(walked.length <= WALK_STATEMENTS, `${walked.length} statements to walk 20,000 submissions`);
    assert.deepEqual((await erase(account, account.workspaceId, { email: 'p1@many.example' })).body, { email: 'p1@many.example', deleted: 21, remaining: 0 });
    const left = await db().selectFrom('submissions').select('id').where('formId', '=', form.id).execute();
    assert.equal(left.length, 20_000 - 21);
  });

  it('asks for an email address, and nothing else', async () => {
    for (const email of ['', 'ann', 'ann@x', 'a b@x.com']) {
      assertValidation(app, await preview(account, account.workspaceId, { email }), 'email');
      assertValidation(app, await erase(account, account.workspaceId, { email }), 'email');
    }
    assertValidation(app, await erase(account, account.workspaceId, {}), 'email');
    assertValidation(app, await erase(account, account.workspaceId, { email: 5 }), 'email');
    assertProblem(app, await erase(account, account.workspaceId, { email: 'ann@x.com', formId: 'x' }), 'validation_error');
  });

  it('reaches only the token’s own workspaces (another account’s answers 404 as a missing one), upgraded ones only', async () => {
    const othersForm = await createForm(app, other);
    const kept = await insertSubmission(app, othersForm, { email: 'kept@x.com' }, Date.now());
    for (const send of [preview, erase]) {
      const missing = `ws_${newId()}`;
      assertSameNotFound(
        app,
        await send(account, other.workspaceId, { email: 'kept@x.com' }),
        other.workspaceId,
        await send(account, missing, { email: 'kept@x.com' }),
        missing,
      );
    }
    assert.equal(await exists(kept), true);

    const free = await createAccount(app, { plan: 'FREE' });
    assertProblem(app, await erase(free, free.workspaceId, { email: 'kept@x.com' }), 'upgrade_required', { workspaceId: free.workspaceId });
    assertProblem(app, await preview(free, free.workspaceId, { email: 'kept@x.com' }), 'upgrade_required', { workspaceId: free.workspaceId });
  });

  it('needs submissions:write, for the preview too', async () => {
    for (const path of ['/erasure/preview', '/erasure']) {
      await assertAuthMatrix(app, account, {
        method: 'POST',
        path: `/workspaces/${account.workspaceId}${path}`,
        scope: 'submissions:write',
        body: { email: 'ann@x.com' },
      });
    }
  });
});
