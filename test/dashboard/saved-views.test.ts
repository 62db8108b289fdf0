import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SAVED_VIEWS_MAX } from '../../src/services/saved-views.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { listedIds } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { flashOf, type Person, person } from '../helpers/members.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';

const visitor = visitorAddresses(72);

/** The saved views beside Open, Mine, Done and All: [name, count, current]. */
function savedOf(html: string): [string, string, boolean][] {
  return [...html.matchAll(/<a href="[^"]*" class="saved-view"( aria-current="page")?>([^<]+)(?:<span class="view-count"> ([^<]+)<\/span>)?<\/a>/g)].map(
    (m) => [m[2]!, m[3] ?? '', Boolean(m[1])],
  );
}

/** Issue 41, item 8: each member's own saved views of an inbox, counted beside the others. */
describe(`dashboard: saved views of the inbox (${TEST_DIALECT})`, () => {
  let app: TestApp;

  before(async () => {
    app = await startApp();
  });
  after(() => app?.close());

  async function submit(formId: string, name: string): Promise<string> {
    assert.equal((await postJson(app, formId, { name, message: `Hello from ${name}` }, visitor())).status, 200);
    const row = await app.ctx.database.db.selectFrom('submissions').select('id').where('formId', '=', formId).orderBy('seq', 'desc').executeTakeFirstOrThrow();
    return row.id;
  }
  async function memberOf(owner: Person, name: string): Promise<Person> {
    const other = await person(app, name);
    await app.ctx.workspaces.addMember(owner.workspaceId, other.email);
    return other;
  }

  it('saves the view shown under a name, counts it, marks it when shown, keeps it the member’s own, and deletes it', async () => {
    const owner = await person(app, 'views');
    const formId = (await app.ctx.forms.createForm(owner.userId, owner.workspaceId, { name: 'Contact' })).id;
    const [ann, bob] = [await submit(formId, 'Ann'), await submit(formId, 'Bob'), await submit(formId, 'Cy')];
    await owner.client.get(`/submissions/${ann}`); // read: Bob and Cy stay unread
    const inbox = `/w/${owner.workspaceId}/submissions`;
    const shown = await owner.client.get(`${inbox}?unread=1&state=all`);
    assert.match(shown.html, /<summary class="save-view-head">Save this view<\/summary>/);
    const query = /name="query" value="([^"]*)"/.exec(shown.html)![1]!.replaceAll('&amp;', '&');
    assert.equal(query, 'state=all&unread=1', 'the view as shown, in one spelling');

    const saved = await owner.client.post(`/w/${owner.workspaceId}/views`, { name: '  Unread,   all ', form: '', query });
    assert.equal(saved.status, 303);
    assert.equal(saved.location, `${inbox}?state=all&unread=1`);
    const page = await owner.client.get(saved.location!);
    assert.equal(flashOf(page.html), 'View “Unread, all” saved');
    assert.deepEqual(savedOf(page.html), [['Unread, all', '2', true]]);
    assert.match(page.html, /Delete the view “Unread, all”/, 'the view shown can be deleted');
    assert.deepEqual(savedOf((await owner.client.get(inbox)).html), [['Unread, all', '2', false]], 'beside the others on the plain inbox');
    await owner.client.post(`/w/${owner.workspaceId}/submissions/bulk`, [
      ['id', bob],
      ['action', 'read'],
    ]);
    assert.deepEqual(savedOf((await owner.client.get(inbox)).html), [['Unread, all', '1', false]], 'counted as it is now');

    const twice = await owner.client.post(`/w/${owner.workspaceId}/views`, { name: 'unread, ALL', form: '', query: 'unread=1' });
    assert.equal(flashOf((await owner.client.get(twice.location!)).html), 'The view was not saved: A view of this inbox is already called “unread, ALL”.');
    const nameless = await owner.client.post(`/w/${owner.workspaceId}/views`, { name: '   ', form: '', query: 'unread=1' });
    assert.equal(flashOf((await owner.client.get(nameless.location!)).html), 'The view was not saved: The view needs a name.');
    const bogus = await owner.client.post(`/w/${owner.workspaceId}/views`, { name: 'Bogus', form: '', query: 'state=nonsense' });
    assert.equal(flashOf((await owner.client.get(bogus.location!)).html), 'The view was not saved: it is not a view of this inbox.');
    assert.equal((await app.ctx.savedViews.list(owner.userId, owner.workspaceId)).length, 1, 'none of them saved');

    const colleague = await memberOf(owner, 'views-colleague');
    assert.deepEqual(savedOf((await colleague.client.get(inbox)).html), [], 'another member sees none of them');
    const [view] = await app.ctx.savedViews.list(owner.userId, owner.workspaceId);
    assert.equal((await colleague.client.post(`/w/${owner.workspaceId}/views/${view!.id}/delete`, {})).status, 404, 'nor deletes them');

    const deleted = await owner.client.post(`/w/${owner.workspaceId}/views/${view!.id}/delete`, {});
    assert.equal(deleted.location, inbox);
    const after = await owner.client.get(inbox);
    assert.equal(flashOf(after.html), 'View “Unread, all” deleted');
    assert.deepEqual(savedOf(after.html), []);
  });

  it('keeps a form’s views on its inbox, and at most a few per member; another workspace’s form is the 404 page', async () => {
    const owner = await person(app, 'views-form');
    const stranger = await person(app, 'views-stranger');
    const formId = (await app.ctx.forms.createForm(owner.userId, owner.workspaceId, { name: 'Contact' })).id;
    const theirs = (await app.ctx.forms.createForm(stranger.userId, stranger.workspaceId, { name: 'Theirs' })).id;
    const ann = await submit(formId, 'Ann');
    const saved = await owner.client.post(`/w/${owner.workspaceId}/views`, { name: 'Done here', form: formId, query: 'state=done' });
    assert.equal(saved.location, `/forms/${formId}?state=done`);
    assert.deepEqual(savedOf((await owner.client.get(`/forms/${formId}`)).html), [['Done here', '0', false]]);
    assert.deepEqual(savedOf((await owner.client.get(`/w/${owner.workspaceId}/submissions`)).html), [], 'not on the workspace’s inbox');
    assert.deepEqual(listedIds((await owner.client.get(saved.location!)).html), []);
    await owner.client.post(`/forms/${formId}/bulk`, [
      ['id', ann],
      ['action', 'done'],
    ]);
    assert.deepEqual(savedOf((await owner.client.get(`/forms/${formId}`)).html), [['Done here', '1', false]]);

    assert.equal((await owner.client.post(`/w/${owner.workspaceId}/views`, { name: 'Theirs', form: theirs, query: '' })).status, 404);
    const smuggled = await owner.client.post(`/w/${owner.workspaceId}/views`, { name: 'Theirs', form: '', query: `form=${theirs}` });
    assert.equal(flashOf((await owner.client.get(smuggled.location!)).html), 'The view was not saved: it is not a view of this inbox.');
    for (let n = 2; n <= SAVED_VIEWS_MAX; n++) {
      await owner.client.post(`/w/${owner.workspaceId}/views`, { name: `View ${n}`, form: formId, query: `unread=1&search=${n}` });
    }
    assert.equal((await app.ctx.savedViews.list(owner.userId, owner.workspaceId)).length, SAVED_VIEWS_MAX);
    const more = await owner.client.post(`/w/${owner.workspaceId}/views`, { name: 'One more', form: formId, query: 'files=1' });
    assert.equal(
      flashOf((await owner.client.get(more.location!)).html),
      `The view was not saved: You have ${SAVED_VIEWS_MAX} saved views in this workspace: delete one first.`,
    );
    const page = await owner.client.get(`/forms/${formId}`);
    assert.equal(savedOf(page.html).length, SAVED_VIEWS_MAX);
    assert.deepEqual(savedOf(page.html)[1], ['View 2', '', false], 'a view with a search is not counted');
  });
});
