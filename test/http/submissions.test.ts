import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../src/ids.js';
import { SearchIndexer } from '../../src/jobs/search-indexer.js';
import { searchTextOf } from '../../src/services/search-text.js';
import type { SubmissionStatus } from '../../src/db/schema/submission.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { assertAuthMatrix } from '../helpers/auth-matrix.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { walkPages } from '../helpers/pagination.js';
import { assertProblem, assertValidation } from '../helpers/problems.js';

// Rows are written directly so that their times and statuses are exact; test/http/submit*.test.ts
// store submissions through the submit surface and list them through this API.
async function insertSubmission(
  app: TestApp,
  form: { id: string; workspaceId: string },
  data: Record<string, unknown>,
  createdAt: number,
  status: SubmissionStatus = 'accepted',
) {
  const id = newId();
  await app.ctx.database.db
    .insertInto('submissions')
    .values({ id, formId: form.id, workspaceId: form.workspaceId, data: JSON.stringify(data), status, createdAt, searchText: searchTextOf(data) })
    .execute();
  return id;
}

describe('submissions API', () => {
  let app: TestApp;
  let owner: Account;
  let stranger: Account;
  let form: any;
  let other: any;
  const ids: Record<string, string> = {};

  before(async () => {
    app = await startApp();
    owner = await createAccount(app);
    stranger = await createAccount(app);
    form = await createForm(app, owner, { name: 'Contact' });
    other = await createForm(app, owner, { name: 'Orders' });
    const t = Date.now() - 10_000;
    ids.ann = await insertSubmission(app, form, { name: 'Ann', message: 'Hello World' }, t);
    ids.bob = await insertSubmission(app, form, { name: 'Bob', 'Ünïcode Field': 'ZEBRA_x 50%' }, t + 1);
    ids.order = await insertSubmission(app, other, { item: 'Lamp', car: { color: 'Red' } }, t + 2);
    ids.spam = await insertSubmission(app, form, { name: 'Spammer', message: 'hello' }, t + 3, 'spam');
    ids.held = await insertSubmission(app, form, { name: 'Held', message: 'hello' }, t + 4, 'held');
  });
  after(() => app.close());

  it('lists a form’s accepted submissions newest first, with every field', async () => {
    const answer = await app.api('GET', `/forms/${form.id}/submissions`, { token: owner.token });
    assert.equal(answer.status, 200);
    assert.deepEqual(
      answer.body.data.map((s: any) => s.id),
      [ids.bob, ids.ann],
    );
    assert.deepEqual(answer.body.data[1], {
      id: ids.ann,
      formId: form.id,
      data: { name: 'Ann', message: 'Hello World' },
      createdAt: answer.body.data[1].createdAt,
    });
    assert.equal(answer.body.hasMore, false);
    assert.equal(answer.body.nextCursor, null);
  });

  it('sends every field exactly as submitted: nested values, quotes, markup, emoji and escapes come back unchanged, as JSON', async () => {
    const own = await createAccount(app);
    const tricky = await createForm(app, own, { name: 'Tricky' });
    // parsed from JSON text, so that `__proto__` is an own field as a visitor's would be
    const stored = JSON.parse(
      '{"quote \\"me\\"":"back\\\\slash \\u2028 line\\nbreak \\t tab","markup":"</script><b>bold</b>","emoji":"🙂 ﬁ Ünïcode","list":["a",{"deep":["b","c"]}],"__proto__":"own field"}',
    );
    const id = await insertSubmission(app, tricky, stored, Date.now());
    const answer = await app.api('GET', `/forms/${tricky.id}/submissions`, { token: own.token });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(answer.body.data[0].id, id);
    assert.deepEqual(answer.body.data[0].data, stored);
    assert.equal(Object.hasOwn(answer.body.data[0].data, '__proto__'), true);
  });

  it('pages a form by keyset, newest first, every accepted row once even when many share a time', async () => {
    const busyOwner = await createAccount(app);
    const busy = await createForm(app, busyOwner, { name: 'Busy' });
    const t = Date.now() - 5_000;
    const expected: { id: string; createdAt: number }[] = [];
    for (let i = 0; i < 23; i++) {
      const createdAt = t + Math.floor(i / 4);
      expected.push({ id: await insertSubmission(app, busy, { n: String(i) }, createdAt), createdAt });
      if (i % 5 === 0) await insertSubmission(app, busy, { n: `spam ${i}` }, createdAt, 'spam');
    }
    expected.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
    const walked = await walkPages(app, busyOwner.token, `/forms/${busy.id}/submissions`, 4);
    assert.deepEqual(
      walked.ids,
      expected.map((row) => row.id),
    );
    assert.equal(walked.pages, 6);
  });

  it('lists a workspace across its forms, and pages with cursors', async () => {
    const first = await app.api('GET', `/workspaces/${owner.workspaceId}/submissions?limit=2`, { token: owner.token });
    assert.equal(first.status, 200);
    assert.deepEqual(
      first.body.data.map((s: any) => s.id),
      [ids.order, ids.bob],
    );
    assert.equal(first.body.hasMore, true);
    const second = await app.api('GET', `/workspaces/${owner.workspaceId}/submissions?limit=2&startingAfter=${first.body.nextCursor}`, { token: owner.token });
    assert.deepEqual(
      second.body.data.map((s: any) => s.id),
      [ids.ann],
    );
    assert.equal(second.body.hasMore, false);
    // a cursor of the workspace list is foreign to a form list
    assertValidation(
      app,
      await app.api('GET', `/forms/${form.id}/submissions?startingAfter=${first.body.nextCursor}`, { token: owner.token }),
      'startingAfter',
    );
  });

  // SQLite finds new rows in its search backlog until the indexer has moved them (migration 0009);
  // each search is asked in both states. On PostgreSQL the two are the same.
  const indexNow = () => new SearchIndexer(app.ctx.database).indexAll();

  it('searches field names and values case-insensitively, wildcards taken literally', async () => {
    const search = async (term: string, path = `/workspaces/${owner.workspaceId}/submissions`) =>
      (await app.api('GET', `${path}?search=${encodeURIComponent(term)}`, { token: owner.token })).body.data.map((s: any) => s.id);
    for (const stage of ['stored', 'indexed']) {
      if (stage === 'indexed') await indexNow();
      assert.deepEqual(await search('hello world'), [ids.ann], stage);
      assert.deepEqual(await search('HELLO'), [ids.ann], stage);
      assert.deepEqual(await search('ünïcode'), [ids.bob], stage);
      assert.deepEqual(await search('UNICODE'), [ids.bob], `${stage}: without its accents`);
      assert.deepEqual(await search('zébra_x'), [ids.bob], `${stage}: with accents it has not`);
      assert.deepEqual(await search('zebra_x'), [ids.bob], stage);
      assert.deepEqual(await search('50%'), [ids.bob], stage);
      assert.deepEqual(await search('a_n'), [], stage);
      assert.deepEqual(await search('*'), [], stage);
      assert.deepEqual(await search('color'), [ids.order], stage);
      assert.deepEqual(await search('ed'), [ids.order], stage);
      assert.deepEqual(await search('lamp', `/forms/${form.id}/submissions`), [], stage);
    }
  });

  it('finds a term of several words only where they stand together, as written', async () => {
    const own = await createAccount(app);
    const notes = await createForm(app, own, { name: 'Notes' });
    const t = Date.now() - 5_000;
    const together = await insertSubmission(app, notes, { note: 'We met in Lisbon about a refund.' }, t);
    const apart = await insertSubmission(app, notes, { note: 'A refund was asked for in Lisbon, about time.' }, t + 1);
    await insertSubmission(app, notes, { note: 'Lisbon about a refundable ticket' }, t + 2);
    const quoted = await insertSubmission(app, notes, { note: 'she said "yes" at once' }, t + 3);
    const search = async (term: string) =>
      (await app.api('GET', `/workspaces/${own.workspaceId}/submissions?search=${encodeURIComponent(term)}`, { token: own.token })).body.data.map(
        (s: any) => s.id,
      );
    for (const stage of ['stored', 'indexed']) {
      if (stage === 'indexed') await indexNow();
      assert.deepEqual(await search('lisbon about a refund.'), [together], stage);
      assert.deepEqual(await search('LISBON  about'), [], `${stage}: the spaces as written`);
      assert.deepEqual(await search('refund was asked'), [apart], stage);
      assert.deepEqual(await search('said "yes" at'), [quoted], stage);
      assert.deepEqual(await search('said "no" at'), [], stage);
    }
  });

  it('bounds search to 1..256 characters', async () => {
    assertValidation(app, await app.api('GET', `/forms/${form.id}/submissions?search=`, { token: owner.token }), 'search');
    assertValidation(app, await app.api('GET', `/forms/${form.id}/submissions?search=${'a'.repeat(257)}`, { token: owner.token }), 'search');
    assert.equal((await app.api('GET', `/forms/${form.id}/submissions?search=${'a'.repeat(256)}`, { token: owner.token })).status, 200);
  });

  it('ignores query parameters it does not know (a cache-busting _=) on both lists, and still refuses a bad search or limit', async () => {
    for (const list of [`/forms/${form.id}/submissions`, `/workspaces/${owner.workspaceId}/submissions`]) {
      const plain = await app.api('GET', `${list}?limit=2`, { token: owner.token });
      assert.equal(plain.status, 200);
      const busted = await app.api('GET', `${list}?limit=2&_=1732612345678&utm_campaign=x`, { token: owner.token });
      assert.equal(busted.status, 200, JSON.stringify(busted.body));
      assert.deepEqual(
        busted.body.data.map((s: any) => s.id),
        plain.body.data.map((s: any) => s.id),
      );
      assertValidation(app, await app.api('GET', `${list}?_=1&search=`, { token: owner.token }), 'search');
      assertValidation(app, await app.api('GET', `${list}?_=1&limit=101`, { token: owner.token }), 'limit');
    }
  });

  it('hides another account’s forms, workspaces and submissions', async () => {
    assertProblem(app, await app.api('GET', `/forms/${form.id}/submissions`, { token: stranger.token }), 'not_found');
    assertProblem(app, await app.api('GET', `/workspaces/${owner.workspaceId}/submissions`, { token: stranger.token }), 'not_found');
    assertProblem(app, await app.api('DELETE', `/submissions/${ids.ann}`, { token: stranger.token }), 'not_found');
  });

  it('answers upgrade_required on a free workspace, with submissions in it or not', async () => {
    const free = await createAccount(app);
    const freeForm = await createForm(app, free);
    // kept from when the workspace was upgraded: a page must not show them now
    await insertSubmission(app, freeForm, { name: 'Earlier' }, Date.now());
    await app.ctx.workspaces.setPlan(free.workspaceId, 'FREE');
    assertProblem(app, await app.api('GET', `/forms/${freeForm.id}/submissions`, { token: free.token }), 'upgrade_required', { workspaceId: free.workspaceId });
    assertProblem(app, await app.api('GET', `/workspaces/${free.workspaceId}/submissions`, { token: free.token }), 'upgrade_required', {
      workspaceId: free.workspaceId,
    });
    const empty = await createForm(app, owner, { name: 'Empty' });
    assert.deepEqual((await app.api('GET', `/forms/${empty.id}/submissions`, { token: owner.token })).body, { data: [], hasMore: false, nextCursor: null });
  });

  it('deletes a submission (204), refuses quarantined spam with 409', async () => {
    assertProblem(app, await app.api('DELETE', `/submissions/${ids.spam}`, { token: owner.token }), 'conflict');
    const deleted = await app.api('DELETE', `/submissions/${ids.ann}`, { token: owner.token });
    assert.equal(deleted.status, 204);
    assert.equal(deleted.body, null);
    assertProblem(app, await app.api('DELETE', `/submissions/${ids.ann}`, { token: owner.token }), 'not_found');
    const listed = await app.api('GET', `/forms/${form.id}/submissions?search=hello`, { token: owner.token });
    assert.deepEqual(listed.body.data, []);
  });

  it('refuses bad tokens and missing scopes', async () => {
    await assertAuthMatrix(app, owner, { method: 'GET', path: `/forms/${form.id}/submissions`, scope: 'submissions:read' });
    await assertAuthMatrix(app, owner, { method: 'GET', path: `/workspaces/${owner.workspaceId}/submissions`, scope: 'submissions:read' });
    await assertAuthMatrix(app, owner, { method: 'DELETE', path: `/submissions/${ids.bob}`, scope: 'submissions:write' });
  });
});
