import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SubmissionStatus } from '../../src/db/schema/submission.js';
import { newId } from '../../src/ids.js';
import { searchTextOf } from '../../src/services/search-text.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { assertAuthMatrix } from '../helpers/auth-matrix.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { createAccount, createForm, createToken, type Account } from '../helpers/fixtures.js';
import { walkPages } from '../helpers/pagination.js';
import { assertJson, assertProblem, assertSameNotFound, assertValidation } from '../helpers/problems.js';

/** A row written straight into the store, so that its time, status and reasons are exact. */
async function insertSubmission(
  app: TestApp,
  form: { id: string; workspaceId: string },
  data: Record<string, unknown>,
  createdAt: number,
  status: SubmissionStatus = 'accepted',
  spamReasons: string[] | null = null,
): Promise<string> {
  const id = newId();
  await app.ctx.database.db
    .insertInto('submissions')
    .values({
      id,
      formId: form.id,
      workspaceId: form.workspaceId,
      data: JSON.stringify(data),
      status,
      createdAt,
      searchText: status === 'spam' ? '' : searchTextOf(data),
      spamReasons: spamReasons === null ? null : JSON.stringify(spamReasons),
    })
    .execute();
  return id;
}

const statusOf = async (app: TestApp, id: string) =>
  (await app.ctx.database.db.selectFrom('submissions').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;

/** Issue 40, item 6: the spam folder through the API; its list, scopes, refusals and who can reach what. */
describe(`spam folder API: list, scopes, refusals (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let owner: Account;
  let stranger: Account;
  let form: any;
  const ids = {} as Record<'ann' | 'caught' | 'held' | 'marked' | 'old', string>;

  before(async () => {
    app = await startApp();
    owner = await createAccount(app);
    stranger = await createAccount(app);
    form = await createForm(app, owner, { name: 'Contact' });
    const t = Date.now() - 10_000;
    ids.ann = await insertSubmission(app, form, { name: 'Ann' }, t);
    ids.caught = await insertSubmission(app, form, { name: 'Bot', message: 'cheap casino' }, t + 1, 'spam', ['Custom spam word: casino']);
    ids.held = await insertSubmission(app, form, { name: 'Held' }, t + 2, 'held');
    ids.marked = await insertSubmission(app, form, { name: 'Pitch', nested: { a: [1, 'two'] } }, t + 3, 'spam', ['Marked as spam by x@example.com']);
    ids.old = await insertSubmission(app, form, { name: 'Old spam' }, t + 4, 'spam');
  });
  after(() => app.close());

  it('lists a form’s spam newest first, each a Submission with spamReasons; the submission list and its fields stay as they are', async () => {
    const answer = await app.api('GET', `/forms/${form.id}/spam`, { token: owner.token });
    assertJson(answer, 200);
    assert.deepEqual(
      answer.body.data.map((s: any) => s.id),
      [ids.old, ids.marked, ids.caught],
    );
    const marked = answer.body.data[1];
    assert.deepEqual(Object.keys(marked), ['id', 'formId', 'data', 'createdAt', 'spamReasons']);
    assert.deepEqual(marked, {
      id: ids.marked,
      formId: form.id,
      data: { name: 'Pitch', nested: { a: [1, 'two'] } },
      createdAt: marked.createdAt,
      spamReasons: ['Marked as spam by x@example.com'],
    });
    assert.match(marked.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.deepEqual(answer.body.data[0].spamReasons, [], 'spam stored without reasons has none');
    assert.deepEqual(answer.body.data[2].spamReasons, ['Custom spam word: casino']);
    assert.equal(answer.body.hasMore, false);
    assert.equal(answer.body.nextCursor, null);

    const inbox = await app.api('GET', `/forms/${form.id}/submissions`, { token: owner.token });
    assert.deepEqual(inbox.body.data, [{ id: ids.ann, formId: form.id, data: { name: 'Ann' }, createdAt: inbox.body.data[0].createdAt }]);
  });

  it('pages by keyset as the submission lists do: every spam row once, even when many share a time', async () => {
    const busy = await createForm(app, owner, { name: 'Busy' });
    const t = Date.now() - 5_000;
    const expected: { id: string; createdAt: number }[] = [];
    for (let i = 0; i < 11; i++) {
      const createdAt = t + Math.floor(i / 3);
      expected.push({ id: await insertSubmission(app, busy, { n: String(i) }, createdAt, 'spam', [`reason ${i}`]), createdAt });
      if (i % 4 === 0) await insertSubmission(app, busy, { n: `ok ${i}` }, createdAt);
    }
    expected.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
    const walked = await walkPages(app, owner.token, `/forms/${busy.id}/spam`, 3);
    assert.deepEqual(
      walked.ids,
      expected.map((row) => row.id),
    );
    assert.equal(walked.pages, 4);
  });

  it('refuses a bad limit, a forged cursor and another list’s cursor (400), ignores unknown parameters, and answers an empty folder', async () => {
    for (const limit of ['0', '101', 'x'])
      assertValidation(app, await app.api('GET', `/forms/${form.id}/spam?limit=${limit}`, { token: owner.token }), 'limit');
    assertValidation(app, await app.api('GET', `/forms/${form.id}/spam?startingAfter=forged.cursor`, { token: owner.token }), 'startingAfter');
    const first = await app.api('GET', `/forms/${form.id}/spam?limit=1`, { token: owner.token });
    assertValidation(
      app,
      await app.api('GET', `/forms/${form.id}/submissions?startingAfter=${first.body.nextCursor}`, { token: owner.token }),
      'startingAfter',
    );
    const busted = await app.api('GET', `/forms/${form.id}/spam?_=1732612345678&search=casino`, { token: owner.token });
    assert.equal(busted.body.data.length, 3, 'unknown parameters (search too) are ignored');
    const empty = await createForm(app, owner, { name: 'Empty' });
    assert.deepEqual((await app.api('GET', `/forms/${empty.id}/spam`, { token: owner.token })).body, { data: [], hasMore: false, nextCursor: null });
  });

  it('refuses bad tokens and missing scopes on each operation', async () => {
    await assertAuthMatrix(app, owner, { method: 'GET', path: `/forms/${form.id}/spam`, scope: 'submissions:read' });
    await assertAuthMatrix(app, owner, { method: 'POST', path: `/submissions/${ids.ann}/spam`, scope: 'submissions:write' });
    await assertAuthMatrix(app, owner, { method: 'DELETE', path: `/submissions/${ids.caught}/spam`, scope: 'submissions:write' });
    assert.equal(await statusOf(app, ids.ann), 'accepted', 'no refusal moved anything');
    assert.equal(await statusOf(app, ids.caught), 'spam');
  });

  it('a read token lists but cannot mark; a write token marks', async () => {
    const reader = await createToken(app, owner.userId, ['submissions:read']);
    const writer = await createToken(app, owner.userId, ['submissions:write']);
    assertJson(await app.api('GET', `/forms/${form.id}/spam`, { token: reader }), 200);
    assertProblem(app, await app.api('POST', `/submissions/${ids.ann}/spam`, { token: reader }), 'insufficient_scope', { requiredScope: 'submissions:write' });
    assertProblem(app, await app.api('DELETE', `/submissions/${ids.caught}/spam`, { token: reader }), 'insufficient_scope', {
      requiredScope: 'submissions:write',
    });
    assertProblem(app, await app.api('GET', `/forms/${form.id}/spam`, { token: writer }), 'insufficient_scope', { requiredScope: 'submissions:read' });

    const own = await createForm(app, owner, { name: 'Scopes' });
    const id = await insertSubmission(app, own, { name: 'Zed' }, Date.now());
    const marked = await app.api('POST', `/submissions/${id}/spam`, { token: writer });
    assertJson(marked, 200);
    assert.deepEqual(marked.body.spamReasons, [`Marked as spam by ${owner.email}`], 'the token’s account marked it');
    const back = await app.api('DELETE', `/submissions/${id}/spam`, { token: writer });
    assertJson(back, 200);
    assert.equal(back.body.status, 'accepted');
  });

  it('answers another account’s form and submissions as ids that never were (404), and changes nothing', async () => {
    const never = newId();
    assertSameNotFound(
      app,
      await app.api('GET', `/forms/${form.id}/spam`, { token: stranger.token }),
      form.id,
      await app.api('GET', `/forms/${never}/spam`, { token: stranger.token }),
      never,
    );
    for (const [method, id] of [
      ['POST', ids.ann],
      ['DELETE', ids.caught],
      ['POST', ids.caught],
      ['DELETE', ids.ann],
    ] as const) {
      assertSameNotFound(
        app,
        await app.api(method, `/submissions/${id}/spam`, { token: stranger.token }),
        id,
        await app.api(method, `/submissions/${never}/spam`, { token: stranger.token }),
        never,
      );
    }
    assert.equal(await statusOf(app, ids.ann), 'accepted');
    assert.equal(await statusOf(app, ids.caught), 'spam');
  });

  it('answers 409 conflict for a wrong state, and moves nothing', async () => {
    const already = await app.api('POST', `/submissions/${ids.caught}/spam`, { token: owner.token });
    assertProblem(app, already, 'conflict');
    assert.equal(already.body.detail, 'This submission is already in the spam folder.');
    assertProblem(app, await app.api('POST', `/submissions/${ids.held}/spam`, { token: owner.token }), 'conflict');
    const notSpam = await app.api('DELETE', `/submissions/${ids.ann}/spam`, { token: owner.token });
    assertProblem(app, notSpam, 'conflict');
    assert.equal(notSpam.body.detail, 'This submission is not in the spam folder: it is accepted.');
    assertProblem(app, await app.api('DELETE', `/submissions/${ids.held}/spam`, { token: owner.token }), 'conflict');
    assert.deepEqual([await statusOf(app, ids.ann), await statusOf(app, ids.caught), await statusOf(app, ids.held)], ['accepted', 'spam', 'held']);
  });

  it('takes an empty JSON body (clients that always send one), and answers upgrade_required on a free workspace after membership', async () => {
    const own = await createForm(app, owner, { name: 'Bodies' });
    const id = await insertSubmission(app, own, { name: 'Body' }, Date.now());
    const marked = await app.api('POST', `/submissions/${id}/spam`, { token: owner.token, raw: '', headers: { 'content-type': 'application/json' } });
    assertJson(marked, 200);
    assertJson(await app.api('DELETE', `/submissions/${id}/spam`, { token: owner.token, raw: '', headers: { 'content-type': 'application/json' } }), 200);

    const free = await createAccount(app);
    const freeForm = await createForm(app, free);
    const kept = await insertSubmission(app, freeForm, { name: 'Earlier' }, Date.now());
    const spam = await insertSubmission(app, freeForm, { name: 'Spam' }, Date.now(), 'spam');
    await app.ctx.workspaces.setPlan(free.workspaceId, 'FREE');
    const upgrade = { workspaceId: free.workspaceId };
    assertProblem(app, await app.api('GET', `/forms/${freeForm.id}/spam`, { token: free.token }), 'upgrade_required', upgrade);
    assertProblem(app, await app.api('POST', `/submissions/${kept}/spam`, { token: free.token }), 'upgrade_required', upgrade);
    assertProblem(app, await app.api('DELETE', `/submissions/${spam}/spam`, { token: free.token }), 'upgrade_required', upgrade);
    assert.deepEqual([await statusOf(app, kept), await statusOf(app, spam)], ['accepted', 'spam']);
    assertProblem(app, await app.api('POST', `/submissions/${kept}/spam`, { token: stranger.token }), 'not_found');
  });
});
