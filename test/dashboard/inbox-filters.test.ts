import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { listedIds } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { type Person, person } from '../helpers/members.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';

const visitor = visitorAddresses(71);

/** Issue 41, item 8: the inbox's filters by form, unread and files, combined with the others and kept in the address. */
describe(`dashboard: the inbox's filters, unread, with files, by form (${TEST_DIALECT})`, () => {
  let app: TestApp;

  before(async () => {
    app = await startApp();
  });
  after(() => app?.close());

  async function formOf(owner: Person, name: string): Promise<string> {
    return (await app.ctx.forms.createForm(owner.userId, owner.workspaceId, { name })).id;
  }
  async function submit(formId: string, name: string): Promise<string> {
    assert.equal((await postJson(app, formId, { name, message: `Hello from ${name}` }, visitor())).status, 200);
    const row = await app.ctx.database.db.selectFrom('submissions').select('id').where('formId', '=', formId).orderBy('seq', 'desc').executeTakeFirstOrThrow();
    return row.id;
  }
  /** A file row as intake stores it: kept in storage (a key), or dropped (none). */
  async function fileOf(submissionId: string, formId: string, workspaceId: string, stored: boolean) {
    await app.ctx.database.db
      .insertInto('submissionFiles')
      .values({
        id: `f${submissionId}`,
        submissionId,
        formId,
        workspaceId,
        field: 'cv',
        position: 0,
        name: 'cv.pdf',
        type: 'application/pdf',
        size: 10,
        storageKey: stored ? `files/${submissionId}` : null,
        droppedReason: stored ? null : 'too_large',
        createdAt: Date.now(),
      })
      .execute();
  }

  it('narrows to unread ones, to those with a stored file, and to one form of the workspace; the filters combine and the links keep them', async () => {
    const owner = await person(app, 'filters');
    const contact = await formOf(owner, 'Contact');
    const jobs = await formOf(owner, 'Jobs');
    const ann = await submit(contact, 'Ann');
    const bob = await submit(jobs, 'Bob');
    const cy = await submit(jobs, 'Cy');
    const di = await submit(jobs, 'Di');
    await fileOf(bob, jobs, owner.workspaceId, true);
    await fileOf(di, jobs, owner.workspaceId, false);
    await owner.client.get(`/submissions/${cy}`); // read
    const inbox = `/w/${owner.workspaceId}/submissions`;

    assert.deepEqual(listedIds((await owner.client.get(`${inbox}?unread=1`)).html), [di, bob, ann]);
    assert.deepEqual(listedIds((await owner.client.get(`${inbox}?files=1`)).html), [bob], 'a dropped file is no file');
    assert.deepEqual(listedIds((await owner.client.get(`${inbox}?form=${jobs}`)).html), [di, cy, bob]);
    const combined = await owner.client.get(`${inbox}?form=${jobs}&unread=1&state=all`);
    assert.deepEqual(listedIds(combined.html), [di, bob]);
    assert.match(combined.html, /<option value="[^"]+" selected>Jobs<\/option>/, 'the form shows chosen');
    assert.match(combined.html, /name="unread" value="1" checked/);
    assert.match(combined.html, /<details class="date-filter" open>/, 'the filters stay unfolded while used');
    assert.match(combined.html, new RegExp(`href="${inbox}\\?state=all&amp;unread=1&amp;form=${jobs}&amp;submission=${di}"`), 'each line keeps them');
    assert.deepEqual(listedIds((await owner.client.get(`/forms/${jobs}?files=1&unread=1`)).html), [bob], 'a form’s inbox too');
  });

  it('is the 404 page for another workspace’s form, the error page’s 400 for an id no form has', async () => {
    const owner = await person(app, 'filters-own');
    const stranger = await person(app, 'filters-stranger');
    const theirs = await formOf(stranger, 'Theirs');
    await submit(theirs, 'Zed');
    const inbox = `/w/${owner.workspaceId}/submissions`;
    const other = await owner.client.get(`${inbox}?form=${theirs}`);
    assert.equal(other.status, 404);
    assert.doesNotMatch(other.html, /Zed/);
    assert.equal((await owner.client.get(`${inbox}?form=${encodeURIComponent('../x')}`)).status, 400);
  });
});
