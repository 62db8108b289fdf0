import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dayOf } from '../../src/db/schema/daily-count.js';
import { SearchIndexer } from '../../src/jobs/search-indexer.js';
import { scaleTop } from '../../src/dashboard/views/chart.js';
import { newId } from '../../src/ids.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { listedIds } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { flashOf, type Person, person } from '../helpers/members.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';

const visitor = visitorAddresses(77);

/** The ids of the lines shown unread (a dot and a bold name). */
function unreadIds(html: string): string[] {
  return [...html.matchAll(/<tr class="unread" data-id="[^"]+"><td class="select-cell"><input type="checkbox" name="id" value="([^"]+)"/g)].map((m) => m[1]!);
}

describe(`dashboard: the inbox's daily work (${TEST_DIALECT})`, () => {
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

  const rowOf = (id: string) => app.ctx.database.db.selectFrom('submissions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('shows new submissions bold until opened, counts them on the forms list and the form’s tab, and Mark as unread brings one back', async () => {
    const owner = await person(app, 'unread');
    const formId = await formOf(owner);
    const first = await submit(formId, { name: 'Ada', email: 'ada@example.com' });
    const second = await submit(formId, { name: 'Bo', email: 'bo@example.com' });

    const inbox = await owner.client.get(`/forms/${formId}`);
    assert.deepEqual(unreadIds(inbox.html), [second, first]);
    assert.match(inbox.html, /class="who">Ada<span class="visually-hidden"> \(unread\)<\/span><\/a>/, 'a screen reader hears it');
    assert.match(inbox.html, /aria-current="page">Submissions <span class="unread-count">2<span class="visually-hidden"> unread<\/span><\/span><\/a>/);
    const home = await owner.client.get(`/w/${owner.workspaceId}`);
    assert.match(home.html, /<td data-label="New"><span class="unread-count">2<span class="visually-hidden"> unread<\/span><\/span><\/td>/);

    const opened = await owner.client.get(`/submissions/${first}`);
    assert.equal(opened.status, 200);
    assert.equal((await rowOf(first)).unread, 0, 'opening it marks it read');
    assert.match(opened.html, /Submissions <span class="unread-count">1<span/, 'the tab counts the other one');
    assert.deepEqual(unreadIds((await owner.client.get(`/forms/${formId}`)).html), [second]);

    const back = await owner.client.post(`/submissions/${first}/unread`, {});
    assert.equal(back.status, 303);
    assert.equal(back.location, `/forms/${formId}`);
    const after = await owner.client.get(`/forms/${formId}`);
    assert.equal(flashOf(after.html), 'Marked as unread');
    assert.deepEqual(unreadIds(after.html), [second, first]);

    // another account cannot open, read or unread it
    const other = await person(app, 'unread-other');
    assert.equal((await other.client.get(`/submissions/${second}`)).status, 404);
    assert.equal((await other.client.post(`/submissions/${first}/unread`, {})).status, 404);
    assert.equal((await rowOf(second)).unread, 1);
  });

  it('counts at most 99 unread ("99+"), with the partial index, however many there are', async () => {
    const owner = await person(app, 'many');
    const formId = await formOf(owner);
    const now = Date.now();
    const rows = Array.from({ length: 130 }, (_, i) => ({
      id: newId(),
      formId,
      workspaceId: owner.workspaceId,
      data: JSON.stringify({ n: i }),
      status: 'accepted' as const,
      unread: 1,
      createdAt: now - i,
    }));
    await app.ctx.database.db.insertInto('submissions').values(rows).execute();
    assert.equal((await app.ctx.submissionMarks.unreadCounts([formId])).get(formId), 100);
    const home = await owner.client.get(`/w/${owner.workspaceId}`);
    assert.match(home.html, /<span class="unread-count">99\+<span class="visually-hidden"> unread<\/span><\/span>/);
    assert.match((await owner.client.get(`/forms/${formId}`)).html, /Submissions <span class="unread-count">99\+/);
  });

  it('Mark as spam: into the spam folder with who did it, out of the list and the search, its day counted as spam; Not spam brings it back', async () => {
    const owner = await person(app, 'markspam');
    const formId = await formOf(owner);
    const kept = await submit(formId, { message: 'a kept wombat' });
    const id = await submit(formId, { message: 'a numbat selling watches', email: 'seller@example.com' });
    if (TEST_DIALECT === 'sqlite') await new SearchIndexer(app.ctx.database).indexAll();
    const day = dayOf(Date.now());
    const counts = () =>
      app.ctx.database.db.selectFrom('dailyCounts').select(['accepted', 'spam']).where('formId', '=', formId).where('day', '=', day).executeTakeFirstOrThrow();
    assert.deepEqual(await counts(), { accepted: 2, spam: 0 });
    const used = (await app.ctx.workspaces.getForMember(owner.userId, owner.workspaceId)).submissionsUsed;

    await owner.client.get(`/submissions/${id}`);
    const marked = await owner.client.post(`/submissions/${id}/spam`, {});
    assert.equal(marked.status, 303);
    assert.equal(marked.location, `/forms/${formId}`);
    const inbox = await owner.client.get(`/forms/${formId}`);
    assert.equal(flashOf(inbox.html), 'Moved to the spam folder');
    assert.deepEqual(listedIds(inbox.html), [kept]);
    const row = await rowOf(id);
    assert.equal(row.status, 'spam');
    assert.equal(row.searchText, '');
    assert.deepEqual(JSON.parse(row.spamReasons!), [`Marked as spam by ${owner.email}`]);
    assert.deepEqual(await counts(), { accepted: 1, spam: 1 });
    assert.equal((await app.ctx.workspaces.getForMember(owner.userId, owner.workspaceId)).submissionsUsed, used, 'the allowance is not given back');

    const folder = await owner.client.get(`/forms/${formId}/spam`);
    assert.match(folder.html, new RegExp(`href="/submissions/${id}"`));
    // who marked it is on its page (the folder's lines are the inbox's)
    assert.match((await owner.client.get(`/submissions/${id}`)).html, new RegExp(`Marked as spam by ${owner.email.replace('.', '\\.')}`));
    for (const query of ['search=numbat', 'search=numbat&from=2020-01-01']) {
      assert.deepEqual(listedIds((await owner.client.get(`/forms/${formId}?${query}`)).html), [], `not found by ${query}`);
      assert.deepEqual(listedIds((await owner.client.get(`/w/${owner.workspaceId}/submissions?${query}`)).html), []);
    }
    if (TEST_DIALECT === 'sqlite') {
      await new SearchIndexer(app.ctx.database).indexAll();
      assert.deepEqual(listedIds((await owner.client.get(`/forms/${formId}?search=numbat&from=2020-01-01`)).html), [], 'nor once indexed again');
    }
    // twice is refused and changes nothing
    const again = await owner.client.post(`/submissions/${id}/spam`, {});
    assert.equal(again.location, `/submissions/${id}`);
    assert.deepEqual(await counts(), { accepted: 1, spam: 1 });

    await owner.client.post(`/submissions/${id}/not-spam`, { back: `/forms/${formId}/spam` });
    assert.equal((await rowOf(id)).status, 'accepted');
    assert.deepEqual(await counts(), { accepted: 2, spam: 0 });
    assert.deepEqual(listedIds((await owner.client.get(`/forms/${formId}?search=numbat`)).html), [id], 'searchable again');
    if (TEST_DIALECT === 'sqlite') await new SearchIndexer(app.ctx.database).indexAll();
    assert.deepEqual(listedIds((await owner.client.get(`/forms/${formId}?search=numbat&from=2020-01-01`)).html), [id]);
  });

  it('keeps a note per submission (at most 2,000 characters, empty removes it) and shows it in the inbox', async () => {
    const owner = await person(app, 'note');
    const formId = await formOf(owner);
    const id = await submit(formId, { name: 'Cy' });
    await owner.client.get(`/submissions/${id}`);
    const saved = await owner.client.post(`/submissions/${id}/note`, { note: '  Called back on Monday <b>ok</b>  ' });
    assert.equal(saved.status, 303);
    assert.equal(saved.location, `/submissions/${id}#note`);
    const page = await owner.client.get(`/submissions/${id}`);
    assert.equal(flashOf(page.html), 'Note saved');
    assert.match(page.html, /<textarea id="field-note" name="note" rows="3" maxlength="2000"[^>]*>Called back on Monday &lt;b>ok&lt;\/b><\/textarea>/);
    const inbox = await owner.client.get(`/forms/${formId}`);
    assert.match(inbox.html, /<svg role="img" aria-label="Note: Called back on Monday &lt;b>ok&lt;\/b>"/);

    const tooLong = await owner.client.post(`/submissions/${id}/note`, { note: 'x'.repeat(2001) });
    assert.equal(tooLong.status, 303);
    assert.match(flashOf((await owner.client.get(`/submissions/${id}`)).html) ?? '', /The note was not saved: A note holds at most 2,000 characters\./);
    assert.equal((await rowOf(id)).note, 'Called back on Monday <b>ok</b>');

    const other = await person(app, 'note-other');
    assert.equal((await other.client.post(`/submissions/${id}/note`, { note: 'planted' })).status, 404);
    assert.equal((await rowOf(id)).note, 'Called back on Monday <b>ok</b>');

    await owner.client.post(`/submissions/${id}/note`, { note: '   ' });
    assert.equal((await rowOf(id)).note, null);
    assert.doesNotMatch((await owner.client.get(`/forms/${formId}`)).html, /aria-label="Note:/);
  });

  it('bulk: Mark as read, Mark as spam and Delete (through its confirmation) the ticked rows, or the whole page; other forms’ ids change nothing', async () => {
    const owner = await person(app, 'bulk');
    const formId = await formOf(owner);
    const otherForm = await formOf(owner, 'Other');
    const [a, b, c] = [await submit(formId, { n: 'a' }), await submit(formId, { n: 'b' }), await submit(formId, { n: 'c' })];
    const elsewhere = await submit(otherForm, { n: 'elsewhere' });
    const stranger = await person(app, 'bulk-stranger');
    const foreign = await submit(await formOf(stranger), { n: 'foreign' });
    const back = `/forms/${formId}?search=`;
    await owner.client.get(`/forms/${formId}`);

    const read = await owner.client.post(`/forms/${formId}/bulk`, [
      ['id', a],
      ['id', b],
      ['action', 'read'],
      ['back', back],
    ]);
    assert.equal(read.status, 303);
    assert.equal(read.location, back);
    let inbox = await owner.client.get(`/forms/${formId}`);
    assert.equal(flashOf(inbox.html), '2 submissions marked as read');
    assert.deepEqual(unreadIds(inbox.html), [c]);

    // another form's id, or another workspace's: refused, nothing changes
    for (const intruder of [elsewhere, foreign]) {
      const refused = await owner.client.post(`/forms/${formId}/bulk`, [
        ['id', c],
        ['id', intruder],
        ['action', 'spam'],
      ]);
      assert.equal(refused.status, 404);
      assert.match(refused.html, /There is nothing here, or it is not yours to see\./);
      assert.equal((await rowOf(c)).status, 'accepted');
      assert.equal((await rowOf(intruder)).status, 'accepted');
    }
    // a stranger cannot act on this form at all
    await stranger.client.get(`/w/${stranger.workspaceId}`);
    const strangers = await stranger.client.post(`/forms/${formId}/bulk`, [
      ['id', a],
      ['action', 'spam'],
    ]);
    assert.equal(strangers.status, 404);
    assert.equal((await rowOf(a)).status, 'accepted');
    // an address elsewhere is not followed
    const offsite = await owner.client.post(`/forms/${formId}/bulk`, [
      ['id', a],
      ['action', 'read'],
      ['back', 'https://evil.example/'],
    ]);
    assert.equal(offsite.location, `/forms/${formId}`);

    const spam = await owner.client.post(`/forms/${formId}/bulk`, [
      ['id', b],
      ['id', c],
      ['action', 'spam'],
    ]);
    assert.equal(spam.status, 303);
    inbox = await owner.client.get(`/forms/${formId}`);
    assert.equal(flashOf(inbox.html), '2 submissions moved to the spam folder');
    assert.deepEqual(listedIds(inbox.html), [a]);

    // "select all on this page" without script: the page's ids come along
    const d = await submit(formId, { n: 'd' });
    await owner.client.get(`/forms/${formId}`);
    const all = await owner.client.post(`/forms/${formId}/bulk`, [
      ['all', '1'],
      ['pageId', d],
      ['pageId', a],
      ['action', 'delete'],
      ['back', `/forms/${formId}`],
    ]);
    assert.equal(all.status, 303);
    const confirm = new URL(all.location!, app.publicUrl);
    assert.equal(confirm.pathname, '/submissions/delete');
    assert.deepEqual(confirm.searchParams.getAll('id').sort(), [a, d].sort());
    const page = await owner.client.get(`${confirm.pathname}${confirm.search}`);
    assert.equal(page.status, 200);
    assert.match(page.html, /Delete 2 submissions/);
    assert.equal((await rowOf(a)).status, 'accepted', 'nothing deleted before the confirmation');

    // the workspace-wide inbox acts on any of its forms, never another workspace's
    const wide = await owner.client.post(`/w/${owner.workspaceId}/submissions/bulk`, [
      ['id', elsewhere],
      ['id', a],
      ['action', 'read'],
    ]);
    assert.equal(wide.location, `/w/${owner.workspaceId}/submissions`);
    assert.equal((await rowOf(elsewhere)).unread, 0);
    const refusedWide = await owner.client.post(`/w/${owner.workspaceId}/submissions/bulk`, [
      ['id', foreign],
      ['action', 'read'],
    ]);
    assert.equal(refusedWide.status, 404);
    assert.equal((await rowOf(foreign)).unread, 1);
    const none = await owner.client.post(`/forms/${formId}/bulk`, [['action', 'read']]);
    assert.equal(none.status, 303);
    assert.equal(flashOf((await owner.client.get(`/forms/${formId}`)).html), 'Nothing changed: tick the submissions first.');
  });

  it('links Previous (newer) and Next (older) in the inbox’s order, and Reply to the submitter’s address', async () => {
    const owner = await person(app, 'nav');
    const formId = await formOf(owner);
    const oldest = await submit(formId, { name: 'Old', email: 'old@example.com' });
    const middle = await submit(formId, { name: 'Mid', _replyto: 'reply@example.com', email: 'mid@example.com' });
    const newest = await submit(formId, { name: 'New' });
    const page = await owner.client.get(`/submissions/${middle}`);
    assert.match(page.html, new RegExp(`<a href="/submissions/${newest}" rel="prev" data-key="k">← Previous`));
    assert.match(page.html, new RegExp(`<a href="/submissions/${oldest}" rel="next" data-key="j">Next`));
    assert.match(page.html, /<a class="button" href="mailto:reply@example.com">Reply<span class="visually-hidden"> to reply@example.com<\/span><\/a>/);
    const first = await owner.client.get(`/submissions/${newest}`);
    assert.doesNotMatch(first.html, /rel="prev"/);
    assert.doesNotMatch(first.html, /mailto:/, 'no address, no Reply');
    assert.match((await owner.client.get(`/submissions/${oldest}`)).html, /href="mailto:old@example.com"/);
  });

  it('shows times in the account’s zone, else the browser’s (its cookie), else UTC, always with UTC on hover', async () => {
    const owner = await person(app, 'zones');
    const formId = await formOf(owner);
    const id = await submit(formId, { name: 'Zed' });
    await app.ctx.database.db
      .updateTable('submissions')
      .set({ createdAt: Date.parse('2026-01-15T10:02:00Z') })
      .where('id', '=', id)
      .execute();
    // the list's short time ("15 Jan"), the whole of it on hover, with UTC beside another zone
    const timeOf = async () =>
      /<time datetime="2026-01-15T10:02:00.000Z" title="([^"]+)">[^<]+<\/time>/.exec((await owner.client.get(`/forms/${formId}`)).html)![1];
    assert.equal(await timeOf(), '15 Jan 2026, 10:02 UTC');

    owner.client.cookies.set('tz', 'Asia%2FTokyo');
    assert.equal(await timeOf(), '15 Jan 2026, 19:02 GMT+9 (15 Jan 2026, 10:02 UTC)');
    owner.client.cookies.set('tz', 'Mars%2FOlympus');
    assert.equal(await timeOf(), '15 Jan 2026, 10:02 UTC', 'an unknown zone in the cookie: UTC');

    const account = await owner.client.get('/account');
    assert.match(account.html, /<option value="Europe\/Paris">Europe\/Paris<\/option>/);
    const bad = await owner.client.post('/account/time-zone', { timeZone: 'Europe/Atlantis' });
    assert.equal(bad.status, 400);
    assert.match(bad.html, /id="field-timeZone-error">Europe\/Atlantis is not a time zone this server knows\.</);
    assert.equal((await app.ctx.database.db.selectFrom('users').select('timeZone').where('id', '=', owner.userId).executeTakeFirstOrThrow()).timeZone, null);

    const saved = await owner.client.post('/account/time-zone', { timeZone: 'Europe/Paris' });
    assert.equal(saved.status, 303);
    assert.equal(flashOf((await owner.client.get('/account')).html), 'Times are shown in Europe/Paris');
    assert.equal(await timeOf(), '15 Jan 2026, 11:02 CET (15 Jan 2026, 10:02 UTC)', 'the setting wins over the cookie');
    const submissionPage = await owner.client.get(`/submissions/${id}`);
    // headed by the person (issue 41), its time in the account's zone below
    assert.match(submissionPage.html, /<title>Zed · Contact · Formgate<\/title>/);
    assert.match(submissionPage.html, /<dt>Received<\/dt>\s*<dd>\s*<time[^>]*>15 Jan 2026, 11:02 CET<\/time>/);
    assert.match((await owner.client.get('/account')).html, /<option value="Europe\/Paris" selected>/);

    await owner.client.post('/account/time-zone', { timeZone: '' });
    owner.client.cookies.delete('tz');
    assert.equal(await timeOf(), '15 Jan 2026, 10:02 UTC');
  });

  it('scales the chart to a near round number: 12 for 11', () => {
    assert.deepEqual([1, 2, 7, 10, 11, 13, 19, 23, 57, 100, 150, 999].map(scaleTop), [2, 2, 8, 10, 12, 14, 20, 30, 60, 100, 160, 1000]);
  });
});
