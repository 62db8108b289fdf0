import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CompiledQuery } from 'kysely';
import { SCOPES } from '../../src/domain/scopes.js';
import { newId } from '../../src/ids.js';
import { SPAM_SEARCH_BYTE_CAP, SPAM_SEARCH_ROW_CAP } from '../../src/services/spam-folder.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { decodeEntities, listedIds } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { createToken } from '../helpers/fixtures.js';
import { flashOf, type Person, person } from '../helpers/members.js';
import { assertProblem } from '../helpers/problems.js';
import { installQueryCounter, statementsDuring } from '../helpers/query-count.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';

const visitor = visitorAddresses(91);
const RETENTION_MS = 30 * 86_400_000;

/** Issue 41, item 10: the spam folder gets the inbox's lines, a count on its tab, search and bulk Not spam and Delete. */
describe(`dashboard: the spam folder as the inbox (${TEST_DIALECT})`, () => {
  let app: TestApp;

  before(async () => {
    installQueryCounter();
    app = await startApp();
  });
  after(() => app?.close());

  const formOf = async (owner: Person, name = 'Contact') => (await app.ctx.forms.createForm(owner.userId, owner.workspaceId, { name })).id;
  const rowOf = (id: string) => app.ctx.database.db.selectFrom('submissions').selectAll().where('id', '=', id).executeTakeFirst();
  const statusOf = async (id: string) => (await rowOf(id))?.status ?? 'deleted';

  /** Posts through intake; the newest row of the form, with the status intake gave it. */
  async function submit(formId: string, fields: Record<string, unknown>): Promise<string> {
    const answer = await postJson(app, formId, fields, visitor());
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const row = await app.ctx.database.db.selectFrom('submissions').select('id').where('formId', '=', formId).orderBy('seq', 'desc').executeTakeFirstOrThrow();
    return row.id;
  }
  /** Spam the filter catches (a script tag is 10 points), as a visitor sends it. */
  async function spam(formId: string, fields: Record<string, unknown>): Promise<string> {
    const id = await submit(formId, { ...fields, website: '<script>steal()</script>' });
    assert.equal(await statusOf(id), 'spam');
    return id;
  }
  /** `count` spam rows written straight into the store, one a millisecond from `start`. */
  async function insertSpam(owner: Person, formId: string, count: number, dataOf: (i: number) => Record<string, unknown>, start: number) {
    for (let from = 0; from < count; from += 500) {
      const rows = [];
      for (let i = from; i < Math.min(count, from + 500); i++) {
        const data = JSON.stringify(dataOf(i));
        rows.push({ id: newId(), formId, workspaceId: owner.workspaceId, data, status: 'spam' as const, createdAt: start + i, searchText: '' });
      }
      await app.ctx.database.db.insertInto('submissions').values(rows).execute();
    }
  }
  const caught = async (owner: Person, formId: string) => (await app.ctx.submissions.spamFolder(owner.userId, formId, RETENTION_MS)).caught;

  it('lists spam as the inbox lists submissions, a line each linked to its page (where why it was caught is), and counts it on the Spam tab', async () => {
    const owner = await person(app, 'lines');
    const formId = await formOf(owner);
    const older = await spam(formId, { name: 'Mallory Bot', message: 'Cheap watches\nand more' });
    const newer = await spam(formId, { email: 'eve@example.com', message: 'Win a prize' });
    const kept = await submit(formId, { name: 'Ann', message: 'Hello' });

    const folder = await owner.client.get(`/forms/${formId}/spam`);
    assert.equal(folder.status, 200);
    assert.deepEqual(listedIds(folder.html), [newer, older], 'newest first, the accepted one not listed');
    assert.match(folder.html, /<table class="submission-list"[^>]* aria-label="Spam">/);
    assert.match(folder.html, new RegExp(`<a href="/submissions/${older}"[^>]*>Mallory Bot</a>`));
    assert.match(folder.html, new RegExp(`<a href="/submissions/${newer}"[^>]*>eve@example.com</a>`), 'the address when no name is given');
    assert.match(folder.html, /<span class="preview">Cheap watches<\/span>/, 'the first line of the message');
    assert.doesNotMatch(folder.html, new RegExp(kept));
    assert.match(decodeEntities(folder.html), /each is removed 30 days after it came \(the oldest here on <time/);
    assert.match(folder.html, /Open one to see why it was caught\./);
    // its page deletes it too, through the same confirmation, back to the folder
    const view = await owner.client.get(`/submissions/${older}`);
    assert.match(
      view.html,
      new RegExp(
        `<form method="get" action="/submissions/delete"><input type="hidden" name="id" value="${older}"/><input type="hidden" name="back" value="/forms/${formId}/spam"/>`,
      ),
    );
    const tab = /aria-current="page">Spam <span class="spam-count">2<span class="visually-hidden"> in the folder<\/span><\/span><\/a>/;
    assert.match(folder.html, tab);
    // the count is on every page of the form, the inbox's too
    assert.match((await owner.client.get(`/forms/${formId}`)).html, /Spam <span class="spam-count">2<span class="visually-hidden"> in the folder/);

    const page = await owner.client.get(`/submissions/${older}`);
    assert.match(page.html, /The spam filter caught it\./);
    assert.match(page.html, /<ul class="reasons"><li>[^<]*script/i, 'why, on its page');

    // an empty folder says so, and its tab has no count
    const empty = await owner.client.get(`/forms/${await formOf(owner, 'Quiet')}/spam`);
    assert.match(empty.html, /No spam caught\. Whatever the filter catches waits here\./);
    assert.match(empty.html, /aria-current="page">Spam<\/a>/);
  });

  it('counts at most 999 on the tab ("999+"), from the form’s listing index', async () => {
    const owner = await person(app, 'many');
    const formId = await formOf(owner);
    await insertSpam(owner, formId, 1_001, (i) => ({ message: `offer ${i}` }), Date.now() - 100_000);
    // busier neighbours, whose spam the count must not read
    for (const name of ['North', 'South', 'East', 'West']) {
      await insertSpam(owner, await formOf(owner, name), 5_000, (i) => ({ message: `other ${i}` }), Date.now() - 100_000);
    }
    await app.ctx.database.db.executeQuery(CompiledQuery.raw(TEST_DIALECT === 'postgres' ? 'VACUUM ANALYZE submissions' : 'ANALYZE'));
    const folder = await owner.client.get(`/forms/${formId}/spam`);
    assert.match(folder.html, /Spam <span class="spam-count">999\+<span class="visually-hidden"> in the folder/);
    assert.equal(listedIds(folder.html).length, 50, '50 a page');
    assert.match(folder.html, /<a href="[^"]*cursor=[^"]+">Next page<\/a>/);

    const statements = (await statementsDuring(() => app.ctx.submissions.countSpam(formId))).filter((s) => /count/i.test(s.text));
    assert.equal(statements.length, 1);
    const { text, values } = statements[0]!;
    assert.match(text, /limit/i, 'bounded');
    const params = TEST_DIALECT === 'sqlite' ? (values.flat() as unknown[]) : values;
    const plan = await app.ctx.database.db.executeQuery<Record<string, string>>(
      CompiledQuery.raw(`EXPLAIN ${TEST_DIALECT === 'sqlite' ? 'QUERY PLAN ' : ''}${text}`, params),
    );
    const lines = plan.rows.map((row) => row.detail ?? row['QUERY PLAN'] ?? '').join('\n');
    assert.match(lines, /submissions_form_listing/, lines);
  });

  it('searches the folder’s fields, names and values, without case or accents; a miss says so; a search is counted', async () => {
    const owner = await person(app, 'search');
    const formId = await formOf(owner);
    const cake = await spam(formId, { name: 'Gâteau Seller', message: 'Buy CAKE now' });
    const other = await spam(formId, { name: 'Watch Seller', Budget: '100' });

    const hit = await owner.client.get(`/forms/${formId}/spam?search=gateau`);
    assert.equal(hit.status, 200);
    assert.deepEqual(listedIds(hit.html), [cake]);
    assert.match(hit.html, /<table class="submission-list"[^>]* aria-label="Matching spam">/);
    assert.match(hit.html, /<input id="field-search" name="search" type="search" value="gateau"/);
    assert.deepEqual(listedIds((await owner.client.get(`/forms/${formId}/spam?search=cake`)).html), [cake], 'a value, without case');
    assert.deepEqual(listedIds((await owner.client.get(`/forms/${formId}/spam?search=budget`)).html), [other], 'a field’s name');
    assert.deepEqual(listedIds((await owner.client.get(`/forms/${formId}/spam?search=SELLER`)).html), [other, cake]);

    const miss = await owner.client.get(`/forms/${formId}/spam?search=nothing-like-it`);
    assert.equal(miss.status, 200);
    assert.deepEqual(listedIds(miss.html), []);
    assert.match(miss.html, /Nothing in the spam folder matches this search\./);
    assert.match(miss.html, new RegExp(`<a href="/forms/${formId}/spam">Clear the search</a>`));
    // too long: the field says so, and the whole folder is listed
    const long = await owner.client.get(`/forms/${formId}/spam?search=${'x'.repeat(257)}`);
    assert.equal(long.status, 400);
    assert.match(long.html, /Must be at most 256 characters\./);
    assert.equal(listedIds(long.html).length, 2);
    // spam is not found by the inbox's search: it keeps no search text
    assert.deepEqual(listedIds((await owner.client.get(`/forms/${formId}?search=gateau`)).html), []);
  });

  it('checks a bounded share of a long folder per search page, and the next page searches older ones', async () => {
    const owner = await person(app, 'long');
    const formId = await formOf(owner);
    const t = Date.now() - 1_000_000;
    // the one match is older than a page's share of rows
    await insertSpam(owner, formId, 1, () => ({ message: 'the needle' }), t);
    await insertSpam(owner, formId, SPAM_SEARCH_ROW_CAP + 10, (i) => ({ message: `hay ${i}` }), t + 1);
    const first = await owner.client.get(`/forms/${formId}/spam?search=needle`);
    assert.deepEqual(listedIds(first.html), []);
    assert.match(first.html, /Nothing matches among the submissions this page searched; the next page searches older ones\./);
    const next = decodeEntities(/<a href="([^"]+)">Next page<\/a>/.exec(first.html)![1]!);
    assert.match(next, /search=needle/);
    const second = await owner.client.get(next);
    assert.equal(listedIds(second.html).length, 1);
    assert.doesNotMatch(second.html, /Next page/);

    // the bytes are bounded too: large posts end a page's share sooner
    const big = await formOf(owner, 'Big');
    const each = 200 * 1024;
    const rows = Math.ceil(SPAM_SEARCH_BYTE_CAP / each);
    await insertSpam(owner, big, 1, () => ({ message: 'the needle' }), t);
    await insertSpam(owner, big, rows + 2, (i) => ({ message: `${'hay '.repeat(each / 4)}${i}` }), t + 1);
    const share = await owner.client.get(`/forms/${big}/spam?search=needle`);
    assert.deepEqual(listedIds(share.html), []);
    assert.match(share.html, /Next page/);
  });

  it('bulk Not spam moves the ticked ones into the inbox as the single Not spam does, with its words', async () => {
    const owner = await person(app, 'notspam');
    const formId = await formOf(owner);
    const [a, b, c] = [await spam(formId, { name: 'Ann' }), await spam(formId, { name: 'Bo' }), await spam(formId, { name: 'Cy' })];
    const before = await caught(owner, formId);
    const back = `/forms/${formId}/spam?search=`;
    await owner.client.get(`/forms/${formId}/spam`);

    const moved = await owner.client.post(`/forms/${formId}/spam/bulk`, [
      ['id', a],
      ['id', b],
      ['action', 'not-spam'],
      ['back', back],
    ]);
    assert.equal(moved.status, 303);
    assert.equal(moved.location, back);
    const folder = await owner.client.get(`/forms/${formId}/spam`);
    assert.equal(flashOf(folder.html), '2 submissions moved to the inbox; their deliveries are on their way');
    assert.deepEqual(listedIds(folder.html), [c]);
    assert.deepEqual([await statusOf(a), await statusOf(b)], ['accepted', 'accepted']);
    assert.deepEqual(listedIds((await owner.client.get(`/forms/${formId}`)).html).sort(), [a, b].sort());
    assert.equal(await caught(owner, formId), before - 2, 'they leave the folder’s bound');

    // one, from "select all" without script: the single Not spam's own words
    const one = await owner.client.post(`/forms/${formId}/spam/bulk`, [
      ['all', '1'],
      ['pageId', c],
      ['action', 'not-spam'],
    ]);
    assert.equal(one.location, `/forms/${formId}/spam`);
    assert.equal(flashOf((await owner.client.get(`/forms/${formId}/spam`)).html), 'Moved to the inbox; its deliveries are on their way');

    // marked as spam by hand, then back: as it was, nothing sent again
    await owner.client.post(`/forms/${formId}/bulk`, [
      ['id', a],
      ['id', b],
      ['action', 'spam'],
    ]);
    await owner.client.post(`/forms/${formId}/spam/bulk`, [
      ['id', a],
      ['id', b],
      ['action', 'not-spam'],
    ]);
    assert.equal(
      flashOf((await owner.client.get(`/forms/${formId}/spam`)).html),
      '2 submissions moved back to the inbox; their deliveries were made when they first came and are not sent again',
    );
    assert.deepEqual([await statusOf(a), await statusOf(b)], ['accepted', 'accepted']);
  });

  it('bulk Delete goes through the inbox’s confirmation, deletes spam there, and gives the folder’s room back', async () => {
    const owner = await person(app, 'delete');
    const formId = await formOf(owner);
    const [a, b, c] = [await spam(formId, { name: 'Ann' }), await spam(formId, { name: 'Bo' }), await spam(formId, { name: 'Cy' })];
    const before = await caught(owner, formId);
    const back = `/forms/${formId}/spam?search=bo`;
    await owner.client.get(`/forms/${formId}/spam`);

    const chosen = await owner.client.post(`/forms/${formId}/spam/bulk`, [
      ['id', a],
      ['id', b],
      ['action', 'delete'],
      ['back', back],
    ]);
    assert.equal(chosen.status, 303);
    const confirm = new URL(chosen.location!, app.publicUrl);
    assert.equal(confirm.pathname, '/submissions/delete');
    assert.deepEqual(confirm.searchParams.getAll('id').sort(), [a, b].sort());
    assert.equal(confirm.searchParams.get('back'), back);
    const page = await owner.client.get(`${confirm.pathname}${confirm.search}`);
    assert.equal(page.status, 200);
    assert.match(page.html, /<h1>Delete 2 submissions\?<\/h1>/);
    assert.match(decodeEntities(page.html), /go for good, now rather than when the spam folder’s retention ends\./);
    assert.deepEqual([await statusOf(a), await statusOf(b)], ['spam', 'spam'], 'nothing deleted before the confirmation');

    const done = await owner.client.post('/submissions/delete', [
      ['id', a],
      ['id', b],
      ['back', back],
    ]);
    assert.equal(done.status, 303);
    assert.equal(done.location, back);
    const folder = await owner.client.get(`/forms/${formId}/spam`);
    assert.equal(flashOf(folder.html), '2 submissions deleted');
    assert.deepEqual(listedIds(folder.html), [c]);
    assert.deepEqual([await statusOf(a), await statusOf(b)], ['deleted', 'deleted']);
    assert.equal(await caught(owner, formId), before - 2, 'room comes back at once, as after Not spam');
    assert.match(folder.html, /Spam <span class="spam-count">1<span/);

    // the owner's own Mark as spam was never counted into the bound: deleting it takes nothing off
    const mine = await submit(formId, { name: 'Dee' });
    await owner.client.post(`/forms/${formId}/bulk`, [
      ['id', mine],
      ['action', 'spam'],
    ]);
    const counted = await caught(owner, formId);
    await owner.client.post('/submissions/delete', [['id', mine]]);
    assert.equal(await statusOf(mine), 'deleted');
    assert.equal(await caught(owner, formId), counted);
  });

  it('refuses another form’s or workspace’s id, or one not in the folder, with the 404 page, and nothing changes', async () => {
    const owner = await person(app, 'refuse');
    const formId = await formOf(owner);
    const otherForm = await formOf(owner, 'Other');
    const mine = await spam(formId, { name: 'Mine' });
    const elsewhere = await spam(otherForm, { name: 'Elsewhere' });
    const accepted = await submit(formId, { name: 'Kept' });
    const stranger = await person(app, 'refuse-stranger');
    const foreign = await spam(await formOf(stranger), { name: 'Foreign' });
    await owner.client.get(`/forms/${formId}/spam`);

    for (const action of ['not-spam', 'delete']) {
      for (const intruder of [elsewhere, foreign, accepted, 'nope']) {
        const refused = await owner.client.post(`/forms/${formId}/spam/bulk`, [
          ['id', mine],
          ['id', intruder],
          ['action', action],
        ]);
        assert.equal(refused.status, 404, `${action} with ${intruder}`);
        assert.match(refused.html, /There is nothing here, or it is not yours to see\./);
      }
    }
    assert.deepEqual(
      [await statusOf(mine), await statusOf(elsewhere), await statusOf(accepted), await statusOf(foreign)],
      ['spam', 'spam', 'accepted', 'spam'],
    );
    // a stranger cannot act on this folder at all, nor see it
    await stranger.client.get(`/w/${stranger.workspaceId}`);
    assert.equal(
      (
        await stranger.client.post(`/forms/${formId}/spam/bulk`, [
          ['id', mine],
          ['action', 'not-spam'],
        ])
      ).status,
      404,
    );
    assert.equal((await stranger.client.post('/submissions/delete', [['id', mine]])).status, 404);
    assert.equal((await stranger.client.get(`/forms/${formId}/spam`)).status, 404);
    assert.equal((await stranger.client.get(`/forms/${formId}/spam?search=mine`)).status, 404);
    assert.equal(await statusOf(mine), 'spam');

    // no id, no action, an address elsewhere: nothing changes, and the way back stays in the folder
    const none = await owner.client.post(`/forms/${formId}/spam/bulk`, [['action', 'not-spam']]);
    assert.equal(none.location, `/forms/${formId}/spam`);
    assert.equal(flashOf((await owner.client.get(`/forms/${formId}/spam`)).html), 'Nothing changed: tick the submissions first.');
    const unknown = await owner.client.post(`/forms/${formId}/spam/bulk`, [
      ['id', mine],
      ['action', 'spam'],
      ['back', 'https://evil.example/'],
    ]);
    assert.equal(unknown.location, `/forms/${formId}/spam`);
    assert.equal(flashOf((await owner.client.get(`/forms/${formId}/spam`)).html), 'Nothing changed: choose Not spam or Delete.');
    const inbox = await owner.client.post(`/forms/${formId}/spam/bulk`, [
      ['id', mine],
      ['action', 'not-spam'],
      ['back', `/forms/${formId}`],
    ]);
    assert.equal(inbox.location, `/forms/${formId}/spam`, 'back only to the folder');
    assert.equal(await statusOf(mine), 'accepted');
  });

  it('keeps the API’s DELETE of spam a 409 (the spec), while the dashboard may delete it', async () => {
    const owner = await person(app, 'api');
    await app.ctx.workspaces.setPlan(owner.workspaceId, 'BUNDLE_50000', { tellOwners: false });
    const token = await createToken(app, owner.userId, SCOPES);
    const formId = await formOf(owner);
    const id = await spam(formId, { name: 'Quarantined' });
    assertProblem(app, await app.api('DELETE', `/submissions/${id}`, { token }), 'conflict');
    assert.equal(await statusOf(id), 'spam');
    // and the services' bulk deletion still refuses spam unless the dashboard's confirmation asks
    await assert.rejects(app.ctx.submissions.deleteSubmissions(owner.userId, [id]), { code: 'conflict' });
    assert.equal(await statusOf(id), 'spam');
    await owner.client.get(`/forms/${formId}/spam`);
    assert.equal((await owner.client.post('/submissions/delete', [['id', id]])).status, 303);
    assert.equal(await statusOf(id), 'deleted');
  });
});

describe(`dashboard: the spam folder's searches are counted (${TEST_DIALECT})`, () => {
  let app: TestApp;
  before(async () => {
    app = await startApp({ rateLimitSearch: '2/1m' });
  });
  after(() => app?.close());

  it('counts against the search limit as the inbox’s search does; the folder without a search still answers', async () => {
    const owner = await person(app, 'limited');
    const formId = (await app.ctx.forms.createForm(owner.userId, owner.workspaceId, { name: 'Contact' })).id;
    assert.equal((await owner.client.get(`/forms/${formId}/spam?search=one`)).status, 200);
    assert.equal((await owner.client.get(`/forms/${formId}?search=two`)).status, 200);
    const refused = await owner.client.get(`/forms/${formId}/spam?search=three`);
    assert.equal(refused.status, 429);
    assert.match(refused.html, /Too many searches; try again in \d+ seconds?\./);
    assert.equal((await owner.client.get(`/forms/${formId}/spam`)).status, 200);
  });
});
