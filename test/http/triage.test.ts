import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../src/ids.js';
import { searchTextOf } from '../../src/services/search-text.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { assertAuthMatrix } from '../helpers/auth-matrix.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { walkPages } from '../helpers/pagination.js';
import { assertJson, assertProblem, assertSameNotFound, assertValidation } from '../helpers/problems.js';

async function insertSubmission(app: TestApp, form: { id: string; workspaceId: string }, data: Record<string, unknown>, createdAt: number): Promise<string> {
  const id = newId();
  await app.ctx.database.db
    .insertInto('submissions')
    .values({ id, formId: form.id, workspaceId: form.workspaceId, data: JSON.stringify(data), status: 'accepted', createdAt, searchText: searchTextOf(data) })
    .execute();
  return id;
}

/** Issue 41, item 9: triage through the API, beside the spec's Submission. */
describe(`triage API: get, change, lists, refusals (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let owner: Account;
  let member: Account;
  let stranger: Account;
  let form: any;
  let ids: string[];

  before(async () => {
    app = await startApp();
    owner = await createAccount(app);
    member = await createAccount(app);
    stranger = await createAccount(app);
    await app.ctx.database.db
      .insertInto('workspaceMembers')
      .values({ workspaceId: owner.workspaceId, userId: member.userId, role: 'member', createdAt: Date.now() })
      .execute();
    form = await createForm(app, owner, { name: 'Contact' });
    const t = Date.now() - 10_000;
    ids = [];
    for (let i = 0; i < 5; i++) ids.push(await insertSubmission(app, form, { name: `Person ${i}`, message: `Hello ${i}` }, t + i));
  });
  after(() => app.close());

  const triage = (id: string, token = owner.token) => app.api('GET', `/submissions/${id}/triage`, { token });
  const change = (id: string, body: unknown, token = owner.token) => app.api('PATCH', `/submissions/${id}/triage`, { token, body });

  it('answers a new submission open and unassigned; marks it done, keeps the first time, reopens and assigns', async () => {
    const fresh = await triage(ids[0]!);
    assertJson(fresh, 200);
    assert.deepEqual(fresh.body, { submissionId: ids[0], formId: form.id, status: 'open', doneAt: null, assigneeId: null, labels: [] });

    const done = await change(ids[0]!, { status: 'done' });
    assertJson(done, 200);
    assert.equal(done.body.status, 'done');
    assert.match(done.body.doneAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const again = await change(ids[0]!, { status: 'done' });
    assert.equal(again.body.doneAt, done.body.doneAt, 'done again keeps the first time');
    assert.deepEqual((await change(ids[0]!, { status: 'open' })).body.doneAt, null);

    const assigned = await change(ids[1]!, { assigneeId: member.userId, status: 'done' });
    assert.deepEqual(
      { ...assigned.body, doneAt: null },
      { submissionId: ids[1], formId: form.id, status: 'done', doneAt: null, assigneeId: member.userId, labels: [] },
    );
    const emails = await app.ctx.database.db.selectFrom('jobs').select('payload').where('kind', '=', 'email').execute();
    const toMember = emails.map((job) => JSON.parse(String(job.payload))).filter((mail) => mail.to.includes(member.email));
    assert.equal(toMember.length, 1, 'the assignee is emailed once');
    assert.match(toMember[0].text, new RegExp(`/submissions/${ids[1]}`));
    assert.deepEqual((await change(ids[1]!, { assigneeId: null })).body.assigneeId, null);
    await change(ids[1]!, { status: 'open' });

    // the spec's Submission and list are unchanged
    const listed = await app.api('GET', `/forms/${form.id}/submissions`, { token: owner.token });
    assert.deepEqual(Object.keys(listed.body.data[0]), ['id', 'formId', 'data', 'createdAt']);
    assert.equal(listed.body.data.length, 5);
  });

  it('refuses an empty change, another field, a bad status and an assignee who is not a member; nothing changes', async () => {
    assertValidation(app, await change(ids[2]!, {}));
    assertValidation(app, await change(ids[2]!, { status: 'done', note: 'x' }));
    assertValidation(app, await change(ids[2]!, { status: 'closed' }), 'status');
    const outsider = await change(ids[2]!, { assigneeId: stranger.userId, status: 'done' });
    assertValidation(app, outsider, 'assigneeId');
    assert.deepEqual((await triage(ids[2]!)).body, { submissionId: ids[2], formId: form.id, status: 'open', doneAt: null, assigneeId: null, labels: [] });
  });

  it('puts the workspace’s labels on a submission with labelIds, refuses another workspace’s, and filters lists by one', async () => {
    const urgent = await app.ctx.labels.create(owner.userId, owner.workspaceId, { name: 'Urgent', color: 'red' });
    const quote = await app.ctx.labels.create(owner.userId, owner.workspaceId, { name: 'Quote', color: 'green' });
    const theirs = await app.ctx.labels.create(stranger.userId, stranger.workspaceId, { name: 'Theirs', color: 'blue' });
    const set = await change(ids[2]!, { labelIds: [urgent.id, quote.id] });
    assertJson(set, 200);
    assert.deepEqual(set.body.labels, [
      { id: quote.id, name: 'Quote', color: 'green' },
      { id: urgent.id, name: 'Urgent', color: 'red' },
    ]);
    assert.equal(set.body.status, 'open', 'labels alone change nothing else');
    // another workspace's label, with a status: refused whole
    assertValidation(app, await change(ids[2]!, { labelIds: [theirs.id], status: 'done' }), 'labelIds');
    const after = (await triage(ids[2]!)).body;
    assert.equal(after.status, 'open');
    assert.equal(after.labels.length, 2);
    const labelled = await app.api('GET', `/forms/${form.id}/triage?labelId=${urgent.id}`, { token: owner.token });
    assert.deepEqual(
      labelled.body.data.map((s: any) => s.id),
      [ids[2]],
    );
    assert.deepEqual((await change(ids[2]!, { labelIds: [] })).body.labels, []);
  });

  it('lists with triage, filtered by status and assignee, paged by keyset', async () => {
    await change(ids[3]!, { status: 'done' });
    await change(ids[4]!, { assigneeId: member.userId });
    const all = await app.api('GET', `/forms/${form.id}/triage`, { token: owner.token });
    assertJson(all, 200);
    assert.deepEqual(
      all.body.data.map((s: any) => s.id),
      [...ids].reverse(),
    );
    assert.deepEqual(Object.keys(all.body.data[0]), ['id', 'formId', 'data', 'createdAt', 'triage']);
    assert.deepEqual(all.body.data[0].triage, { submissionId: ids[4], formId: form.id, status: 'open', doneAt: null, assigneeId: member.userId, labels: [] });
    const ids_ = async (query: string, path = `/forms/${form.id}/triage`) =>
      (await app.api('GET', `${path}?${query}`, { token: owner.token })).body.data.map((s: any) => s.id);
    assert.deepEqual(await ids_('status=done'), [ids[3]]);
    assert.deepEqual(await ids_('status=open'), [ids[4], ids[2], ids[1], ids[0]]);
    assert.deepEqual(await ids_(`assigneeId=${member.userId}`), [ids[4]]);
    assert.deepEqual(await ids_('assigneeId=none&status=open'), [ids[2], ids[1], ids[0]]);
    assert.deepEqual(await ids_('status=open', `/workspaces/${owner.workspaceId}/triage`), [ids[4], ids[2], ids[1], ids[0]]);
    assertValidation(app, await app.api('GET', `/forms/${form.id}/triage?status=later`, { token: owner.token }), 'status');
    const walked = await walkPages(app, owner.token, `/forms/${form.id}/triage?status=open`, 2);
    assert.deepEqual(walked.ids, [ids[4], ids[2], ids[1], ids[0]]);
  });

  it('answers another account’s submission or form as one that does not exist, and refuses bad tokens and scopes', async () => {
    const unknown = newId();
    assertSameNotFound(app, await triage(ids[0]!, stranger.token), ids[0]!, await triage(unknown, stranger.token), unknown);
    const list = (id: string) => app.api('GET', `/forms/${id}/triage`, { token: stranger.token });
    assertSameNotFound(app, await list(form.id), form.id, await list(unknown), unknown);
    const refused = await change(ids[0]!, { status: 'done' }, stranger.token);
    assertProblem(app, refused, 'not_found');
    assert.equal((await triage(ids[0]!)).body.status, 'open');
    await assertAuthMatrix(app, owner, { method: 'GET', path: `/submissions/${ids[0]}/triage`, scope: 'submissions:read' });
    await assertAuthMatrix(app, owner, { method: 'PATCH', path: `/submissions/${ids[0]}/triage`, scope: 'submissions:write', body: { status: 'done' } });
    await assertAuthMatrix(app, owner, { method: 'GET', path: `/forms/${form.id}/triage`, scope: 'submissions:read' });
    assert.equal((await triage(ids[0]!)).body.status, 'open', 'no refusal changed anything');
    const free = await createAccount(app, { plan: 'FREE' });
    const freeForm = await app.ctx.forms.createForm(free.userId, free.workspaceId, { name: 'Free' });
    const freeId = await insertSubmission(app, freeForm, { name: 'Free' }, Date.now());
    assertProblem(app, await triage(freeId, free.token), 'upgrade_required');
    assertProblem(app, await app.api('GET', `/forms/${freeForm.id}/triage`, { token: free.token }), 'upgrade_required');
  });
});
