import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { dayOf } from '../../src/db/schema/daily-count.js';
import { SearchIndexer } from '../../src/jobs/search-indexer.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { listedIds } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { alertOf, flashOf, type Person, person } from '../helpers/members.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';

const visitor = visitorAddresses(61);

/** A link of the page by its text. */
function linkTo(html: string, text: string): string | undefined {
  const href = new RegExp(`<a href="([^"]+)">${text}</a>`).exec(html)?.[1];
  return href?.replaceAll('&amp;', '&');
}

function fieldError(html: string, name: string): string | undefined {
  return new RegExp(`id="field-${name}-error">([^<]*)<`).exec(html)?.[1];
}

/** Posts several values of one name (the checkboxes of a bulk delete), as the person's page would. */
async function postPairs(who: Person, path: string, pairs: [string, string][]): Promise<Response> {
  const answer = await fetch(`${who.client.app.publicUrl}${path}`, {
    method: 'POST',
    redirect: 'manual',
    body: new URLSearchParams([['_csrf', who.client.csrf], ...pairs]).toString(),
    headers: {
      origin: who.client.app.publicUrl,
      'content-type': 'application/x-www-form-urlencoded',
      cookie: [...who.client.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
    },
  });
  // keeps the flash it sets, as the browser would
  for (const line of answer.headers.getSetCookie()) {
    const [name, ...value] = line.split(';')[0]!.split('=');
    who.client.cookies.set(name!.trim(), value.join('='));
  }
  return answer;
}

describe(`dashboard: the submissions inbox, a submission, delete, spam and held (${TEST_DIALECT})`, () => {
  let app: TestApp;

  before(async () => {
    app = await startApp();
  });
  after(() => app?.close());

  async function formOf(owner: Person, settings: Record<string, unknown> = {}): Promise<string> {
    return (await app.ctx.forms.createForm(owner.userId, owner.workspaceId, { name: 'Contact', ...settings })).id;
  }

  /** Submits through the submit surface; answers the stored submission's id. */
  async function submit(formId: string, fields: Record<string, unknown>): Promise<string> {
    const answer = await postJson(app, formId, fields, visitor());
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const row = await app.ctx.database.db.selectFrom('submissions').select('id').where('formId', '=', formId).orderBy('seq', 'desc').executeTakeFirstOrThrow();
    return row.id;
  }

  async function statusOf(id: string): Promise<string | undefined> {
    return (await app.ctx.database.db.selectFrom('submissions').select('status').where('id', '=', id).executeTakeFirst())?.status;
  }

  it('lists a FREE form’s submissions newest first, 50 a page, following signed cursors, a line each', async () => {
    const owner = await person(app, 'pager');
    assert.equal((await app.ctx.workspaces.getForMember(owner.userId, owner.workspaceId)).plan, 'FREE');
    const formId = await formOf(owner);
    const empty = await owner.client.get(`/forms/${formId}`);
    assert.equal(empty.status, 200);
    assert.match(empty.html, /No submissions yet\./);
    assert.match(empty.html, new RegExp(`href="/forms/${formId}/setup">Set up the form</a>`));

    const ids: string[] = [];
    for (let i = 0; i < 52; i++) ids.push(await submit(formId, { name: `Person ${i}`, email: `p${i}@example.com` }));
    const first = await owner.client.get(`/forms/${formId}`);
    assert.equal(first.status, 200);
    assert.deepEqual(listedIds(first.html), ids.slice(2).reverse());
    // each line opens its submission in the reading pane beside this page of the list (issue 41, item 2)
    assert.match(first.html, new RegExp(`<a href="/forms/${formId}\\?submission=${ids[51]}" data-pane class="who">Person 51<`), 'named by who sent it');
    assert.equal(linkTo(first.html, 'Back to the newest'), undefined);
    const next = linkTo(first.html, 'Next page')!;
    assert.match(next, new RegExp(`^/forms/${formId}\\?cursor=`));
    const second = await owner.client.get(next);
    assert.deepEqual(listedIds(second.html), [ids[1], ids[0]]);
    assert.equal(linkTo(second.html, 'Next page'), undefined);
    assert.equal(linkTo(second.html, 'Back to the newest'), `/forms/${formId}`);

    // the API's cursor of this list is good here; an edited one, or another list's, is refused
    const cursor = new URL(next, app.publicUrl).searchParams.get('cursor')!;
    const edited = await owner.client.get(`/forms/${formId}?cursor=${cursor.slice(0, -2)}xx`);
    assert.equal(edited.status, 400);
    assert.match(edited.html, /The cursor is invalid\./);
    assert.equal((await owner.client.get(`/forms/${formId}/spam?cursor=${cursor}`)).status, 400);
  });

  it('names each line by its sender and the first line of its message, cut; without either, says so and shows the first field', async () => {
    const owner = await person(app, 'lines');
    const formId = await formOf(owner);
    const long = `${'word '.repeat(40)}end`;
    const wide = await submit(formId, { a: '1', b: '2', c: '3', d: '4', e: '5', f: '6', g: '7', h: '8' });
    const grace = await submit(formId, { 'Full Name': 'Grace <Hopper>', Comments: `${long}\nsecond line`, address: { city: 'Oslo', zip: '0150' } });
    const page = await owner.client.get(`/forms/${formId}`);
    const line = (id: string) => new RegExp(`name="id" value="${id}"[\\s\\S]*?</tr>`).exec(page.html)![0];
    assert.match(line(grace), /class="who">Grace &lt;Hopper><span class="visually-hidden"> \(unread\)<\/span><\/a>/);
    const preview = /<span class="preview">([^<]*)<\/span>/.exec(line(grace))![1]!;
    assert.ok(preview.startsWith('word word') && preview.endsWith('…') && [...preview].length <= 140, preview);
    assert.doesNotMatch(line(grace), /Oslo|second line/, 'one line: the rest is on its page');
    assert.match(line(wide), /class="who nobody">No name given</);
    assert.match(line(wide), /<span class="preview">1<\/span>/, 'no message: its first field');
    const view = await owner.client.get(`/submissions/${wide}`);
    assert.match(view.html, /<dt>h<\/dt><dd><span class="value-text">8<\/span>/, 'the submission’s own page shows every field');
  });

  it('searches, filters by UTC days (both inclusive), refuses a bad date beside its field and links exports with the filter', async () => {
    const owner = await person(app, 'filter');
    const formId = await formOf(owner);
    const zebra = await submit(formId, { message: 'A zebra crossing' });
    const jan1 = await submit(formId, { message: 'first of January' });
    const jan2 = await submit(formId, { message: 'second of January' });
    const setTime = (id: string, iso: string) =>
      app.ctx.database.db
        .updateTable('submissions')
        .set({ createdAt: Date.parse(iso) })
        .where('id', '=', id)
        .execute();
    await setTime(jan1, '2026-01-01T23:59:59.999Z');
    await setTime(jan2, '2026-01-02T00:00:00.000Z');

    const found = await owner.client.get(`/forms/${formId}?search=ZEBRA`);
    assert.deepEqual(listedIds(found.html), [zebra]);
    assert.match(found.html, /id="field-search"[^>]*value="ZEBRA"/);
    const nothing = await owner.client.get(`/forms/${formId}?search=giraffe`);
    assert.deepEqual(listedIds(nothing.html), []);
    assert.match(nothing.html, /Nothing matches this filter\./);
    assert.equal(linkTo(nothing.html, 'Clear the filters'), `/forms/${formId}`);

    assert.deepEqual(listedIds((await owner.client.get(`/forms/${formId}?from=2026-01-02&to=2026-01-02`)).html), [jan2]);
    assert.deepEqual(listedIds((await owner.client.get(`/forms/${formId}?to=2026-01-01`)).html), [jan1]);
    const both = await owner.client.get(`/forms/${formId}?from=2026-01-01&to=2026-01-02&search=january`);
    assert.deepEqual(listedIds(both.html), [jan2, jan1]);
    assert.equal(linkTo(both.html, 'Export CSV'), `/forms/${formId}/export?format=csv&search=january&from=2026-01-01&to=2026-01-02`);
    assert.equal(linkTo(both.html, 'Export JSON'), `/forms/${formId}/export?format=json&search=january&from=2026-01-01&to=2026-01-02`);

    const bad = await owner.client.get(`/forms/${formId}?from=2026-02-30&to=soon&search=january`);
    assert.equal(bad.status, 400);
    assert.equal(fieldError(bad.html, 'from'), 'Must be a date written YYYY-MM-DD, such as 2026-11-24.');
    assert.equal(fieldError(bad.html, 'to'), 'Must be a date written YYYY-MM-DD, such as 2026-11-24.');
    assert.match(bad.html, /id="field-from"[^>]*value="2026-02-30"/, 'what was typed is shown back');
    assert.deepEqual(listedIds(bad.html), [jan2, jan1], 'the bad dates filter nothing');
    assert.equal(linkTo(bad.html, 'Export CSV'), `/forms/${formId}/export?format=csv&search=january`, 'exports carry only the good part');
    const backwards = await owner.client.get(`/forms/${formId}?from=2026-01-02&to=2026-01-01`);
    assert.equal(fieldError(backwards.html, 'to'), 'Must be the same day as From or later.');
  });

  it('the workspace’s inbox lists every form’s submissions, each line naming its form', async () => {
    const owner = await person(app, 'workspace');
    const contact = await formOf(owner);
    const orders = await formOf(owner, { name: 'Orders <b>' });
    const a = await submit(contact, { name: 'Ada' });
    const b = await submit(orders, { item: 'Tea' });
    const page = await owner.client.get(`/w/${owner.workspaceId}/submissions`);
    assert.equal(page.status, 200);
    assert.match(page.html, /<h1>All submissions<\/h1>/);
    assert.deepEqual(listedIds(page.html), [b, a]);
    assert.match(page.html, new RegExp(`<td class="form-cell"><a href="/forms/${orders}">Orders &lt;b></a></td>`));
    assert.equal(linkTo(page.html, 'Export CSV'), `/w/${owner.workspaceId}/export?format=csv`);
    assert.deepEqual(listedIds((await owner.client.get(`/w/${owner.workspaceId}/submissions?search=tea`)).html), [b]);
  });

  it('deletes one or several after a confirmation; another workspace’s id or a post without the CSRF token delete nothing; spam goes too (issue 41)', async () => {
    const owner = await person(app, 'deleter');
    const stranger = await person(app, 'stranger');
    const formId = await formOf(owner);
    const theirs = await submit(await formOf(stranger), { name: 'Theirs' });
    const [a, b, c] = [await submit(formId, { name: 'A' }), await submit(formId, { name: 'B' }), await submit(formId, { name: 'C' })];
    const back = `/forms/${formId}?search=`;

    const confirm = await owner.client.get(`/submissions/delete?id=${a}&id=${b}&back=${encodeURIComponent(back)}`);
    assert.equal(confirm.status, 200);
    assert.match(confirm.html, /<h1>Delete 2 submissions\?<\/h1>/);
    assert.match(confirm.html, /This cannot be undone\./);
    assert.equal(await statusOf(a), 'accepted', 'the confirmation changes nothing');

    const one = await owner.client.post('/submissions/delete', { id: a, back });
    assert.equal(one.status, 303);
    assert.equal(one.location, back);
    assert.equal(flashOf((await owner.client.get(back)).html), 'Submission deleted');
    assert.equal(await statusOf(a), undefined);

    const mixed = await postPairs(owner, '/submissions/delete', [
      ['id', b],
      ['id', theirs],
      ['back', back],
    ]);
    assert.equal(mixed.status, 404, 'another workspace’s id among them: the 404 page');
    assert.equal(await statusOf(b), 'accepted', 'and nothing deleted');
    assert.equal(await statusOf(theirs), 'accepted');
    assert.equal((await owner.client.get(`/submissions/delete?id=${b}&id=${theirs}`)).status, 404);

    const forged = await owner.client.post('/submissions/delete', { id: b, _csrf: '' });
    assert.equal(forged.status, 403);
    assert.equal(await statusOf(b), 'accepted');

    await owner.client.get(back);
    const several = await postPairs(owner, '/submissions/delete', [
      ['id', b],
      ['id', c],
      ['back', 'https://evil.example/'],
    ]);
    assert.equal(several.status, 303);
    assert.equal(several.headers.get('location'), '/', 'never back to another site');
    assert.equal(await statusOf(b), undefined);
    assert.equal(await statusOf(c), undefined);
    assert.equal(flashOf((await owner.client.get(back)).html), '2 submissions deleted');

    const none = await owner.client.get(`/submissions/delete?back=${encodeURIComponent(back)}`);
    assert.equal(none.status, 303);
    assert.equal(none.location, back);
    assert.equal(flashOf((await owner.client.get(back)).html), 'Nothing was deleted: choose the submissions to delete first.');

    const spam = await submit(formId, { message: '<script>alert(1)</script>' });
    assert.equal(await statusOf(spam), 'spam');
    await owner.client.get(`/forms/${formId}`);
    // the dashboard may delete spam early (the spam folder's Delete); the API's DELETE keeps its 409 (spam-folder.test.ts)
    const early = await owner.client.post('/submissions/delete', { id: spam, back });
    assert.equal(early.status, 303);
    assert.equal(await statusOf(spam), undefined);

    const many = Array.from({ length: 101 }, (_, i) => ['id', `x${i}`]);
    const tooMany = await owner.client.get(`/submissions/delete?${new URLSearchParams(many)}&back=${encodeURIComponent(back)}`);
    assert.equal(tooMany.status, 303);
    assert.equal(flashOf((await owner.client.get(back)).html), 'Nothing was deleted: at most 100 submissions can be deleted at once.');
  });

  it('deletes from the submission’s own page, back to the inbox with a flash', async () => {
    const owner = await person(app, 'single');
    const formId = await formOf(owner);
    const id = await submit(formId, { name: 'Once' });
    const view = await owner.client.get(`/submissions/${id}`);
    assert.match(view.html, /<form method="get" action="\/submissions\/delete"/);
    const confirm = await owner.client.get(`/submissions/delete?id=${id}&back=${encodeURIComponent(`/forms/${formId}`)}`);
    assert.match(confirm.html, /<h1>Delete this submission\?<\/h1>/);
    const done = await owner.client.post('/submissions/delete', { id, back: `/forms/${formId}` });
    assert.equal(done.location, `/forms/${formId}`);
    assert.equal(flashOf((await owner.client.get(`/forms/${formId}`)).html), 'Submission deleted');
    assert.equal((await owner.client.get(`/submissions/${id}`)).status, 404);
  });

  it('Not spam: accepted, its deliveries queued, searchable (the index too), its day’s counts moved, and the filter taught nothing', async () => {
    const owner = await person(app, 'notspam');
    const formId = await formOf(owner, { notificationEmails: ['team@example.com', 'boss@example.com'] });
    const spam = await submit(formId, { email: 'kim@example.com', message: 'See <script>quokka()</script>' });
    assert.equal(await statusOf(spam), 'spam');

    const folder = await owner.client.get(`/forms/${formId}/spam`);
    assert.equal(folder.status, 200);
    assert.match(folder.html, new RegExp(`href="/submissions/${spam}"[^>]*>kim@example\\.com</a>`), 'its line: who sent it');
    assert.match(folder.html, /each is removed 30 days after it came/);
    const view = await owner.client.get(`/submissions/${spam}`);
    assert.match(view.html, /<span class="badge danger">Spam<\/span>/);
    assert.match(view.html, /The spam filter caught it\./);
    assert.match(view.html, /<ul class="reasons"><li>[^<]+<\/li>/, 'why, on its page');
    assert.match(view.html, /Spam is never delivered\./);
    const used = (await app.ctx.workspaces.getForMember(owner.userId, owner.workspaceId)).submissionsUsed;
    // on SQLite, the spam row (its empty search text) already in the search index: the case an UPDATE alone would miss
    if (TEST_DIALECT === 'sqlite') await new SearchIndexer(app.ctx.database).indexAll();
    const day = dayOf(Date.now());

    await owner.client.get(`/forms/${formId}/spam`);
    const moved = await owner.client.post(`/submissions/${spam}/not-spam`, { back: `/forms/${formId}/spam` });
    assert.equal(moved.status, 303);
    assert.equal(moved.location, `/forms/${formId}/spam`);
    const after = await owner.client.get(`/forms/${formId}/spam`);
    assert.equal(flashOf(after.html), 'Moved to the inbox; its deliveries are on their way');
    assert.match(after.html, /No spam caught\./);

    const row = await app.ctx.database.db.selectFrom('submissions').selectAll().where('id', '=', spam).executeTakeFirstOrThrow();
    assert.equal(row.status, 'accepted');
    assert.equal(row.spamReasons, null);
    assert.match(row.searchText, /quokka/);
    assert.equal((await app.ctx.workspaces.getForMember(owner.userId, owner.workspaceId)).submissionsUsed, used + 1);
    const jobs = await app.ctx.deliveries.forSubmission(spam);
    assert.deepEqual(jobs.map((j) => `${j.kind} ${j.recipient}`).sort(), ['notification boss@example.com', 'notification team@example.com']);
    const counts = await app.ctx.database.db
      .selectFrom('dailyCounts')
      .selectAll()
      .where('formId', '=', formId)
      .where('day', '=', day)
      .executeTakeFirstOrThrow();
    assert.deepEqual([counts.accepted, counts.spam], [1, 0]);

    assert.deepEqual(listedIds((await owner.client.get(`/forms/${formId}?search=quokka`)).html), [spam], 'found by the recent rows');
    // a date range sends the search to the index (and SQLite's backlog): found there too, before and after indexing
    const ranged = `/forms/${formId}?search=quokka&from=2020-01-01`;
    assert.deepEqual(listedIds((await owner.client.get(ranged)).html), [spam]);
    if (TEST_DIALECT === 'sqlite') {
      await new SearchIndexer(app.ctx.database).indexAll();
      assert.deepEqual(listedIds((await owner.client.get(ranged)).html), [spam], 'found through the search index once indexed');
      await sql`INSERT INTO submissions_search (submissions_search) VALUES ('integrity-check')`.execute(app.ctx.database.db);
    }
    const viewAfter = await owner.client.get(`/submissions/${spam}`);
    assert.match(viewAfter.html, /<span class="badge">Accepted<\/span>/);
    assert.match(viewAfter.html, /Notification email<span class="muted sub-line">to boss@example\.com<\/span>/);

    // twice is refused: it is no longer spam
    const again = await owner.client.post(`/submissions/${spam}/not-spam`, {});
    assert.equal(again.status, 409);
    assert.match(again.html, /not in the spam folder: it is accepted\./);

    // the same content is judged as before: Not spam changed no signal of the filter
    const repeat = await submit(formId, { email: 'kim@example.com', message: 'See <script>quokka()</script>' });
    assert.equal(await statusOf(repeat), 'spam');
  });

  it('Not spam past the allowance: held, the owners told once, listed among the held with what releases them', async () => {
    const owner = await person(app, 'allowance');
    const formId = await formOf(owner, { notificationEmails: ['team@example.com'] });
    const spam = await submit(formId, { message: '<script>x()</script>' });
    await app.ctx.database.db.updateTable('workspaces').set({ submissionsUsed: 250 }).where('id', '=', owner.workspaceId).execute();

    await owner.client.get(`/submissions/${spam}`);
    const moved = await owner.client.post(`/submissions/${spam}/not-spam`, { back: `/submissions/${spam}` });
    assert.equal(moved.location, `/submissions/${spam}`);
    const view = await owner.client.get(`/submissions/${spam}`);
    assert.equal(flashOf(view.html), 'Moved to the inbox, but held: the allowance is used');
    assert.match(view.html, /<span class="badge neutral">Held<\/span>/);
    assert.match(view.html, /allowance of 250 accepted submissions on the Free plan/);
    assert.match(view.html, /does not start again each month/);
    assert.equal(await statusOf(spam), 'held');
    assert.deepEqual(await app.ctx.deliveries.forSubmission(spam), [], 'held: nothing delivered yet');
    const workspace = await app.ctx.workspaces.getForMember(owner.userId, owner.workspaceId);
    assert.equal(workspace.submissionsUsed, 250);
    assert.notEqual(workspace.quotaNotifiedAt, null);
    const notices = await app.ctx.database.db.selectFrom('jobs').select('payload').where('kind', '=', 'email').execute();
    assert.equal(notices.filter((j) => String(typeof j.payload === 'string' ? j.payload : JSON.stringify(j.payload)).includes(owner.email)).length, 1);

    const inbox = await owner.client.get(`/forms/${formId}`);
    assert.match(inbox.html, new RegExp(`<a href="/forms/${formId}/held">1 submission is held</a>`));
    const held = await owner.client.get(`/forms/${formId}/held`);
    assert.equal(held.status, 200);
    assert.match(held.html, new RegExp(`href="/submissions/${spam}"`));
    assert.match(held.html, /releases held submissions oldest first/);

    // the upgrade releases it and it is delivered
    await app.ctx.workspaces.setPlan(owner.workspaceId, 'BUNDLE_50000');
    assert.equal(await statusOf(spam), 'accepted');
    assert.equal((await app.ctx.deliveries.forSubmission(spam)).length, 1);
  });

  it('someone of another workspace gets the 404 page on every page and change, and nothing changes', async () => {
    const owner = await person(app, 'private');
    const outsider = await person(app, 'outsider');
    const formId = await formOf(owner);
    const accepted = await submit(formId, { name: 'Private' });
    const spam = await submit(formId, { message: '<script>y()</script>' });
    for (const path of [
      `/forms/${formId}`,
      `/forms/${formId}/spam`,
      `/forms/${formId}/held`,
      `/w/${owner.workspaceId}/submissions`,
      `/submissions/${accepted}`,
      `/submissions/${spam}`,
      `/submissions/delete?id=${accepted}`,
      '/submissions/nope',
      '/forms/nope',
    ]) {
      const answer = await outsider.client.get(path);
      assert.equal(answer.status, 404, path);
      assert.match(answer.html, /There is nothing here, or it is not yours to see\./);
    }
    await outsider.client.get(`/w/${outsider.workspaceId}`);
    assert.equal((await outsider.client.post('/submissions/delete', { id: accepted })).status, 404);
    assert.equal((await outsider.client.post(`/submissions/${spam}/not-spam`, {})).status, 404);
    assert.equal((await outsider.client.post('/submissions/nope/not-spam', {})).status, 404);
    assert.equal(await statusOf(accepted), 'accepted');
    assert.equal(await statusOf(spam), 'spam');
    assert.equal(alertOf((await owner.client.get(`/submissions/${accepted}`)).html), undefined);
  });
});
