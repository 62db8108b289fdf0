import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { listedIds } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { flashOf, loggedIn, type Person, person } from '../helpers/members.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';

const visitor = visitorAddresses(67);

/** The count beside the Open view. */
function openCount(html: string): string | undefined {
  return /<a href="[^"]*"[^>]*>Open<span class="view-count"> ([^<]+)<\/span><\/a>/.exec(html)?.[1];
}

describe(`dashboard: triage, open and done, assignees (${TEST_DIALECT})`, () => {
  let app: TestApp;

  before(async () => {
    app = await startApp();
  });
  after(() => app?.close());

  async function formOf(owner: Person, name = 'Contact'): Promise<string> {
    return (await app.ctx.forms.createForm(owner.userId, owner.workspaceId, { name })).id;
  }

  async function submit(formId: string, fields: Record<string, unknown>): Promise<string> {
    const answer = await postJson(app, formId, fields, visitor());
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const row = await app.ctx.database.db.selectFrom('submissions').select('id').where('formId', '=', formId).orderBy('seq', 'desc').executeTakeFirstOrThrow();
    return row.id;
  }

  async function stored(id: string) {
    return app.ctx.database.db.selectFrom('submissions').select(['doneAt', 'assigneeId']).where('id', '=', id).executeTakeFirstOrThrow();
  }

  /** A second account, made a member of the owner's workspace. */
  async function memberOf(owner: Person, name: string): Promise<Person> {
    const other = await person(app, name);
    await app.ctx.database.db
      .insertInto('workspaceMembers')
      .values({ workspaceId: owner.workspaceId, userId: other.userId, role: 'member', createdAt: Date.now() })
      .execute();
    return other;
  }

  /** The emails queued to `address` (the outbox's jobs). */
  async function mailsTo(address: string): Promise<{ subject: string; text: string }[]> {
    const jobs = await app.ctx.database.db.selectFrom('jobs').select('payload').where('kind', '=', 'email').execute();
    return jobs
      .map((job) => (typeof job.payload === 'string' ? JSON.parse(job.payload) : job.payload) as { to: string[]; subject: string; text: string })
      .filter((mail) => mail.to.includes(address));
  }

  it('lists open ones by default; Mark as done moves them to Done, Reopen brings them back; a search finds both', async () => {
    const owner = await person(app, 'triage');
    const formId = await formOf(owner);
    const [a, b, c] = [
      await submit(formId, { name: 'Ann', message: 'apples' }),
      await submit(formId, { name: 'Bob', message: 'pears' }),
      await submit(formId, { name: 'Cy', message: 'apples too' }),
    ];
    let inbox = await owner.client.get(`/forms/${formId}`);
    assert.deepEqual(listedIds(inbox.html), [c, b, a]);
    assert.equal(openCount(inbox.html), '3');
    assert.match(inbox.html, /aria-current="page">Open<span/);

    const done = await owner.client.post(`/forms/${formId}/bulk`, [
      ['id', a],
      ['id', c],
      ['action', 'done'],
    ]);
    assert.equal(done.status, 303);
    inbox = await owner.client.get(`/forms/${formId}`);
    assert.equal(flashOf(inbox.html), '2 submissions marked as done');
    assert.deepEqual(listedIds(inbox.html), [b]);
    assert.equal(openCount(inbox.html), '1');
    const doneAt = (await stored(a)).doneAt;
    assert.ok(doneAt !== null && Math.abs(Number(doneAt) - Date.now()) < 60_000);

    const doneView = await owner.client.get(`/forms/${formId}?state=done`);
    assert.deepEqual(listedIds(doneView.html), [c, a]);
    assert.match(doneView.html, /value="reopen"[^>]*>Reopen</, 'the done view offers Reopen');
    const all = await owner.client.get(`/forms/${formId}?state=all`);
    assert.deepEqual(listedIds(all.html), [c, b, a]);
    assert.equal([...all.html.matchAll(/<span class="badge neutral line-badge">Done<\/span>/g)].length, 2, 'All marks the done ones');
    // done ones stay searchable: a search without a chosen view looks at all of them
    assert.deepEqual(listedIds((await owner.client.get(`/forms/${formId}?search=apples`)).html), [c, a]);
    assert.deepEqual(listedIds((await owner.client.get(`/forms/${formId}?search=apples&state=open`)).html), []);

    // marking done again keeps the first time
    await owner.client.post(`/forms/${formId}/bulk`, [
      ['id', a],
      ['action', 'done'],
    ]);
    assert.equal((await stored(a)).doneAt, doneAt);
    await owner.client.post(`/forms/${formId}/bulk`, [
      ['id', a],
      ['action', 'reopen'],
      ['back', `/forms/${formId}?state=done`],
    ]);
    assert.equal((await stored(a)).doneAt, null);
    assert.deepEqual(listedIds((await owner.client.get(`/forms/${formId}`)).html), [b, a]);
    assert.equal((await owner.client.get(`/forms/${formId}?state=later`)).status, 400, 'an unknown view is refused');
  });

  it('assigns to a member, who is emailed a link and finds them under Mine; never to a stranger; leaving unassigns', async () => {
    const owner = await person(app, 'assigner');
    const formId = await formOf(owner);
    const ada = await memberOf(owner, 'ada');
    const stranger = await person(app, 'outsider');
    const [a, b] = [await submit(formId, { name: 'Grace Hopper', message: 'About the compiler' }), await submit(formId, { name: 'Alan', message: 'Hello' })];

    const assigned = await owner.client.post(`/forms/${formId}/bulk`, [
      ['id', a],
      ['action', 'assign'],
      ['assignee', ada.userId],
    ]);
    assert.equal(assigned.status, 303);
    assert.equal((await stored(a)).assigneeId, ada.userId);
    const [mail, ...others] = await mailsTo(ada.email);
    assert.equal(others.length, 0);
    assert.equal(mail!.subject, `${owner.email} assigned you a submission from Grace Hopper`);
    assert.match(mail!.text, new RegExp(`Open the submission: ${app.publicUrl}/submissions/${a}`));
    assert.match(mail!.text, /Grace Hopper \(Contact\): “About the compiler”/);

    // the assignee's own view, and the owner's badge naming them
    const adaClient = await loggedIn(app, ada.email);
    const mine = await adaClient.get(`/forms/${formId}?assignee=me`);
    assert.deepEqual(listedIds(mine.html), [a]);
    assert.match(mine.html, /aria-current="page">Mine<span class="view-count"> 1<\/span>/, 'Mine counts hers');
    assert.match(mine.html, /<span class="visually-hidden">Assigned to <\/span>You<\/span>/);
    const ownerView = await owner.client.get(`/forms/${formId}`);
    assert.match(ownerView.html, new RegExp(`title="${ada.email}"><span class="visually-hidden">Assigned to </span>${ada.email.split('@')[0]}</span>`));
    assert.deepEqual(listedIds((await owner.client.get(`/forms/${formId}?assignee=none`)).html), [b]);

    // assigning yourself sends nothing; a stranger is refused and nothing changes
    await owner.client.post(`/forms/${formId}/bulk`, [
      ['id', b],
      ['action', 'assign'],
      ['assignee', owner.userId],
    ]);
    assert.equal((await mailsTo(owner.email)).filter((m) => /assigned you/.test(m.subject)).length, 0);
    const refused = await owner.client.post(`/forms/${formId}/bulk`, [
      ['id', b],
      ['action', 'assign'],
      ['assignee', stranger.userId],
    ]);
    assert.equal(refused.status, 303);
    assert.match(flashOf((await owner.client.get(`/forms/${formId}`)).html) ?? '', /^Nothing changed: .*member/);
    assert.equal((await stored(b)).assigneeId, owner.userId);

    // another workspace's submission: the 404 page, and it is not assigned
    const theirs = await submit(await formOf(stranger), { name: 'Theirs' });
    const intruding = await owner.client.post(`/forms/${formId}/bulk`, [
      ['id', theirs],
      ['action', 'assign'],
      ['assignee', owner.userId],
    ]);
    assert.equal(intruding.status, 404);
    assert.equal((await stored(theirs)).assigneeId, null);

    // Ada leaves: what was hers is nobody's
    await app.ctx.team.leave(ada.userId, owner.workspaceId);
    assert.equal((await stored(a)).assigneeId, null);
  });

  it('triages from the submission’s page: Mark as done goes back to the inbox, Reopen and Assign stay', async () => {
    const owner = await person(app, 'page');
    const formId = await formOf(owner);
    const ada = await memberOf(owner, 'page-member');
    const id = await submit(formId, { name: 'Zed', message: 'Hi' });
    const page = await owner.client.get(`/submissions/${id}`);
    assert.match(page.html, /<dt>Triage<\/dt><dd><form method="post" action="\/submissions\/[a-z0-9]+\/triage"/);
    assert.match(page.html, /<span class="badge">Open<\/span>/);

    const done = await owner.client.post(`/submissions/${id}/triage`, { status: 'done' });
    assert.equal(done.location, `/forms/${formId}`);
    assert.match((await owner.client.get(`/submissions/${id}`)).html, /<span class="badge neutral">Done<\/span>/);
    const reopened = await owner.client.post(`/submissions/${id}/triage`, { status: 'open' });
    assert.equal(reopened.location, `/submissions/${id}`);
    assert.equal((await stored(id)).doneAt, null);

    await owner.client.post(`/submissions/${id}/triage`, { assignee: ada.userId });
    const assigned = await owner.client.get(`/submissions/${id}`);
    assert.equal(flashOf(assigned.html), 'Assigned; they are told by email');
    assert.match(assigned.html, new RegExp(`<option value="${ada.userId}" selected>`));
    await owner.client.post(`/submissions/${id}/triage`, { assignee: '' });
    assert.equal((await stored(id)).assigneeId, null);
  });
});
