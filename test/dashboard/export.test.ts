import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard.js';
import { csvRecords, download, insertSubmission } from '../helpers/export.js';
import { person } from '../helpers/members.js';

const DAY = 86_400_000;

/** The error page's title and message. */
function errorOf(html: string): string {
  return html
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

describe('dashboard: export', () => {
  let app: TestApp;
  let owner: DashboardClient;
  let outsider: DashboardClient;
  let ownerId: string;
  let workspaceId: string;
  let form: { id: string; workspaceId: string };
  let other: { id: string; workspaceId: string };
  const t0 = Date.parse('2026-03-01T23:59:59.999Z');
  const ids: Record<string, string> = {};

  /** A download with the client's cookies, its byte order mark kept. */
  const get = (client: DashboardClient, path: string) =>
    download(`${app.publicUrl}${path}`, { cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ') });

  before(async () => {
    app = await startApp();
    const member = await person(app, 'owner');
    owner = member.client;
    ownerId = member.userId;
    workspaceId = member.workspaceId;
    outsider = (await person(app, 'outsider')).client;
    form = await app.ctx.forms.createForm(ownerId, workspaceId, { name: 'Contact' });
    other = await app.ctx.forms.createForm(ownerId, workspaceId, { name: 'Orders' });
    ids.first = await insertSubmission(app, form, { name: 'Ann', city: '=1+1' }, t0);
    ids.second = await insertSubmission(app, form, { name: 'Bob' }, t0 + 1);
    ids.order = await insertSubmission(app, other, { item: 'Lamp', size: { w: '3' } }, t0 + DAY);
    await insertSubmission(app, form, { name: 'Spam' }, t0 + DAY, 'spam');
  });
  after(() => app?.close());

  it('downloads a form’s submissions as CSV and JSON on a FREE workspace, each with its triage (issue 41)', async () => {
    assert.equal((await app.ctx.workspaces.getForMember(ownerId, workspaceId)).plan, 'FREE');
    // Ann is done, assigned to the owner and labelled; Bob is open
    const [quote, urgent] = [
      await app.ctx.labels.create(ownerId, workspaceId, { name: 'Quote', color: 'green' }),
      await app.ctx.labels.create(ownerId, workspaceId, { name: '=Urgent', color: 'red' }),
    ];
    await app.ctx.triage.update({ id: ownerId }, ids.first!, { status: 'done', assigneeId: ownerId });
    await app.ctx.labels.setLabels(ownerId, ids.first!, [quote.id, urgent.id]);
    const ownerEmail = (await app.ctx.database.db.selectFrom('users').select('email').where('id', '=', ownerId).executeTakeFirstOrThrow()).email;
    const csv = await get(owner, `/forms/${form.id}/export?format=csv`);
    assert.equal(csv.status, 200);
    assert.match(csv.headers.get('content-type') ?? '', /^text\/csv; charset=utf-8/);
    assert.match(csv.headers.get('content-disposition') ?? '', /^attachment; filename="contact-submissions-\d{4}-\d{2}-\d{2}\.csv"$/);
    assert.deepEqual(csvRecords(csv.text), [
      ['id', 'createdAt', 'formId', 'name', 'city', 'status', 'assignee', 'labels'],
      [ids.second, new Date(t0 + 1).toISOString(), form.id, 'Bob', '', 'open', '', ''],
      [ids.first, new Date(t0).toISOString(), form.id, 'Ann', "'=1+1", 'done', ownerEmail, "'=Urgent, Quote"],
    ]);
    const json = await get(owner, `/forms/${form.id}/export?format=json`);
    assert.equal(json.status, 200);
    assert.match(json.headers.get('content-disposition') ?? '', /filename="contact-submissions-\d{4}-\d{2}-\d{2}\.json"/);
    assert.deepEqual(
      JSON.parse(json.text).map((s: any) => [s.id, s.data, s.triage.status, s.triage.assignee, s.triage.labels]),
      [
        [ids.second, { name: 'Bob' }, 'open', null, []],
        [ids.first, { name: 'Ann', city: '=1+1' }, 'done', ownerEmail, ['=Urgent', 'Quote']],
      ],
    );
  });

  it('downloads the whole workspace, every form’s fields, named after the workspace', async () => {
    const csv = await get(owner, `/w/${workspaceId}/export?format=csv`);
    assert.equal(csv.status, 200);
    assert.match(csv.headers.get('content-disposition') ?? '', /filename="my-workspace-submissions-/);
    const [header, ...rows] = csvRecords(csv.text);
    assert.deepEqual(header, ['id', 'createdAt', 'formId', 'item', 'size.w', 'name', 'city', 'status', 'assignee', 'labels']);
    assert.deepEqual(
      rows.map((row) => [row[0], row[2]]),
      [
        [ids.order, other.id],
        [ids.second, form.id],
        [ids.first, form.id],
      ],
    );
  });

  it('filters as the inbox does: search, and from / to as whole UTC days', async () => {
    const idsOf = async (path: string) => JSON.parse((await get(owner, path)).text).map((s: any) => s.id);
    assert.deepEqual(await idsOf(`/w/${workspaceId}/export?format=json&from=2026-03-01&to=2026-03-01`), [ids.first]);
    assert.deepEqual(await idsOf(`/w/${workspaceId}/export?format=json&from=2026-03-02`), [ids.order, ids.second]);
    assert.deepEqual(await idsOf(`/w/${workspaceId}/export?format=json&search=lamp`), [ids.order]);
    assert.deepEqual(await idsOf(`/forms/${form.id}/export?format=json&search=lamp`), []);
  });

  it('shows the error page for a bad format or date, naming it, and exports nothing', async () => {
    const bad = await owner.get(`/forms/${form.id}/export?format=xlsx`);
    assert.equal(bad.status, 400);
    assert.match(bad.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(errorOf(bad.html), /The export’s format must be csv or json\./);
    assert.equal((await owner.get(`/forms/${form.id}/export`)).status, 400);
    const date = await owner.get(`/w/${workspaceId}/export?format=csv&from=2026-02-30&to=2026-13-01`);
    assert.equal(date.status, 400);
    assert.match(errorOf(date.html), /From: Must be a date written YYYY-MM-DD, such as 2026-11-24\. To: Must be a date written YYYY-MM-DD/);
    const range = await owner.get(`/forms/${form.id}/export?format=csv&from=2026-03-02&to=2026-03-01`);
    assert.equal(range.status, 400);
    assert.match(errorOf(range.html), /To: Must be the same day as From or later\./);
  });

  it('is the 404 page for an outsider, whether or not the form or workspace exists', async () => {
    for (const path of [
      `/forms/${form.id}/export?format=csv`,
      '/forms/nosuchform/export?format=csv',
      `/w/${workspaceId}/export?format=json`,
      '/w/nosuchworkspace/export?format=json',
    ]) {
      const answer = await outsider.get(path);
      assert.equal(answer.status, 404, path);
      assert.match(errorOf(answer.html), /There is nothing here, or it is not yours to see\./, path);
    }
  });

  it('sends a visitor without a session to the login page, and back afterwards', async () => {
    const path = `/forms/${form.id}/export?format=csv`;
    const answer = await new DashboardClient(app).get(path);
    assert.equal(answer.status, 303);
    assert.equal(answer.location, `/login?next=${encodeURIComponent(path)}`);
  });
});
