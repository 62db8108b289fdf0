import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { flashOf, type Person, person } from '../helpers/members.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';

const visitor = visitorAddresses(69);

/** The reading pane's section of an inbox page, if one is open. */
const paneOf = (html: string) => /<section class="panel reading-pane"[\s\S]*<\/section><\/div>/.exec(html)?.[0];
const headingOf = (pane: string) => /<h2 id="pane-heading" tabindex="-1">([^<]*)<\/h2>/.exec(pane)?.[1];
const hrefOf = (pane: string, rel: string) => new RegExp(`<a href="([^"]+)" rel="${rel}"`).exec(pane)?.[1]?.replaceAll('&amp;', '&');
const backsOf = (pane: string) => [...pane.matchAll(/name="back" value="([^"]+)"/g)].map((m) => m[1]!.replaceAll('&amp;', '&'));

/** Issue 41, item 2: a submission beside the list, at its own address, without leaving the inbox. */
describe(`dashboard: the inbox's reading pane (${TEST_DIALECT})`, () => {
  let app: TestApp;

  before(async () => {
    app = await startApp();
  });
  after(() => app?.close());

  async function submit(formId: string, fields: Record<string, unknown>): Promise<string> {
    assert.equal((await postJson(app, formId, fields, visitor())).status, 200);
    const row = await app.ctx.database.db.selectFrom('submissions').select('id').where('formId', '=', formId).orderBy('seq', 'desc').executeTakeFirstOrThrow();
    return row.id;
  }
  const unread = async (id: string) =>
    (await app.ctx.database.db.selectFrom('submissions').select('unread').where('id', '=', id).executeTakeFirstOrThrow()).unread === 1;

  async function inboxOf(owner: Person, names: string[]) {
    const formId = (await app.ctx.forms.createForm(owner.userId, owner.workspaceId, { name: 'Contact' })).id;
    const ids: string[] = [];
    for (const name of names) ids.push(await submit(formId, { name, email: `${name.toLowerCase()}@example.com`, message: `Hello from ${name}` }));
    return { formId, ids };
  }

  it('opens a line beside the list at its own address: marked read, its line current, newer and older on this page, the view kept', async () => {
    const owner = await person(app, 'pane');
    const { formId, ids } = await inboxOf(owner, ['Ann', 'Bob', 'Cy']);
    const [ann, bob, cy] = ids as [string, string, string];
    const list = await owner.client.get(`/forms/${formId}?state=all`);
    assert.equal(paneOf(list.html), undefined, 'no pane until a line is chosen');
    assert.match(list.html, new RegExp(`<a href="/forms/${formId}\\?state=all&amp;submission=${bob}" data-pane class="who">Bob<`), 'each line keeps the view');

    const opened = await owner.client.get(`/forms/${formId}?state=all&submission=${bob}`);
    assert.equal(opened.status, 200);
    const pane = paneOf(opened.html)!;
    assert.ok(pane, 'the pane is on the page, beside the list');
    assert.equal(headingOf(pane), 'Bob');
    assert.match(pane, /Hello from Bob/);
    assert.match(opened.html, /<title>Bob · Submissions · Contact · Formgate<\/title>/);
    assert.match(opened.html, new RegExp(`<tr class="current" data-id="${bob}">`), 'its line is marked, and read');
    assert.match(opened.html, new RegExp(`data-id="${ann}"`), 'the list is still there');
    assert.equal(await unread(bob), false);
    assert.equal(await unread(ann), true);
    assert.equal(hrefOf(pane, 'prev'), `/forms/${formId}?state=all&submission=${cy}`, 'newer: the line above');
    assert.equal(hrefOf(pane, 'next'), `/forms/${formId}?state=all&submission=${ann}`, 'older: the line below');
    const first = paneOf((await owner.client.get(`/forms/${formId}?state=all&submission=${cy}`)).html)!;
    assert.equal(hrefOf(first, 'prev'), undefined, 'nothing newer than the first line');
  });

  it('sends each change back to the pane, to the next one once it leaves the view, or to the list when marked unread', async () => {
    const owner = await person(app, 'pane-backs');
    const { formId, ids } = await inboxOf(owner, ['Ann', 'Bob', 'Cy']);
    const [ann, bob] = ids as [string, string, string];
    const here = `/forms/${formId}?submission=${bob}`;
    const pane = paneOf((await owner.client.get(here)).html)!;
    const next = `/forms/${formId}?submission=${ann}`;
    // done, unread, spam, delete, assign, labels, note: in the order the pane shows them
    assert.deepEqual(backsOf(pane), [next, here, `/forms/${formId}`, next, next, here]);

    const done = await owner.client.post(`/submissions/${bob}/triage`, [
      ['status', 'done'],
      ['back', next],
    ]);
    assert.equal(done.status, 303);
    assert.equal(done.location, next, 'done: on to the next one');
    const assigned = await owner.client.post(`/submissions/${bob}/triage`, [
      ['assignee', owner.userId],
      ['back', here],
    ]);
    assert.equal(assigned.location, here);
    const noted = await owner.client.post(`/submissions/${bob}/note`, [
      ['note', 'call back'],
      ['back', here],
    ]);
    assert.equal(noted.location, `${here}#note`);
    const unreadAgain = await owner.client.post(`/submissions/${bob}/unread`, [['back', `/forms/${formId}`]]);
    assert.equal(unreadAgain.location, `/forms/${formId}`, 'unread: the list, which opening it again would undo');
    assert.equal(await unread(bob), true);
    const elsewhere = await owner.client.post(`/submissions/${ann}/triage`, [
      ['assignee', ''],
      ['back', 'https://evil.example/phish'],
    ]);
    assert.equal(elsewhere.location, '/', 'never to another site');
    const page = await owner.client.post(`/submissions/${ann}/triage`, [['assignee', '']]);
    assert.equal(page.location, `/submissions/${ann}`, 'from the submission’s own page, back to it as before');
  });

  it('is the 404 page for another workspace’s submission or another form’s, which stays unread; a moved one opens its own page', async () => {
    const owner = await person(app, 'pane-own');
    const stranger = await person(app, 'pane-stranger');
    const mine = await inboxOf(owner, ['Ann']);
    const theirs = await inboxOf(stranger, ['Zed']);
    const other = await inboxOf(owner, ['Bea']);
    const zed = theirs.ids[0]!;
    assert.equal((await owner.client.get(`/forms/${mine.formId}?submission=${zed}`)).status, 404);
    assert.equal((await owner.client.get(`/w/${owner.workspaceId}/submissions?submission=${zed}`)).status, 404);
    assert.equal(await unread(zed), true, 'nothing changed');
    const bea = other.ids[0]!;
    assert.equal((await owner.client.get(`/forms/${mine.formId}?submission=${bea}`)).status, 404, 'another form’s: not this inbox’s');
    const workspace = await owner.client.get(`/w/${owner.workspaceId}/submissions?submission=${bea}`);
    assert.equal(workspace.status, 200, 'the workspace’s inbox holds every form’s');
    assert.match(paneOf(workspace.html)!, /<dt>Form<\/dt><dd><a href="\/forms\/[^"]+">Contact<\/a><\/dd>/);
    assert.equal((await owner.client.get(`/forms/${mine.formId}?submission=nosuchid`)).status, 404);

    const ann = mine.ids[0]!;
    await owner.client.post(`/forms/${mine.formId}/bulk`, [
      ['id', ann],
      ['action', 'spam'],
    ]);
    const moved = await owner.client.get(`/forms/${mine.formId}?submission=${ann}`);
    assert.equal(moved.status, 303);
    assert.equal(moved.location, `/submissions/${ann}`);
    assert.equal(flashOf((await owner.client.get(moved.location!)).html), undefined);
  });
});
