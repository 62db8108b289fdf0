import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { type Person, person } from '../helpers/members.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';

const visitor = visitorAddresses(71);
const NOT_YOURS = /There is nothing here, or it is not yours to see\./;
// what the owner's data holds: none of it may reach the outsider's pages
const PRIVATE = ['Private form', 'Ada Secret', 'owner-team@example.com', 'PRIVATE TEMPLATE', 'captcha-secret-value'];

/**
 * Every page of a form and of a workspace's submissions, tried by someone of another workspace:
 * each answers the 404 page whether or not the thing exists, shows nothing of it, and every change
 * tried changes nothing (compared row by row before and after).
 */
describe(`dashboard: nobody reaches another workspace's forms, submissions, templates or deliveries (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let owner: Person;
  let outsider: Person;
  let formId: string;
  let accepted: string;
  let spam: string;
  let jobId: string;

  before(async () => {
    app = await startApp();
    owner = await person(app, 'owner');
    outsider = await person(app, 'outsider');
    const form = await app.ctx.forms.createForm(owner.userId, owner.workspaceId, { name: 'Private form', notificationEmails: ['owner-team@example.com'] });
    formId = form.id;
    await app.ctx.forms.putSecret(owner.userId, formId, 'TURNSTILE', 'captcha-secret-value');
    await app.ctx.templates.putTemplate(owner.userId, formId, 'notification', '<p>PRIVATE TEMPLATE {{data.name}}</p>');
    const sent = await postJson(app, formId, { name: 'Ada Secret', email: 'ada@example.com' }, visitor());
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    const caught = await postJson(app, formId, { name: 'Ada Secret', message: '<script>steal()</script>' }, visitor());
    assert.equal(caught.status, 200);
    const rows = await app.ctx.database.db.selectFrom('submissions').select(['id', 'status']).where('formId', '=', formId).execute();
    accepted = rows.find((r) => r.status === 'accepted')!.id;
    spam = rows.find((r) => r.status === 'spam')!.id;
    // a failed delivery, so that Retry has something the outsider could try to send again
    const job = await app.ctx.database.db.selectFrom('jobs').select('id').where('submissionId', '=', accepted).executeTakeFirstOrThrow();
    jobId = job.id;
    await app.ctx.database.db.updateTable('jobs').set({ status: 'failed', lastError: 'refused' }).where('id', '=', jobId).execute();
  });
  after(() => app?.close());

  /** Everything the owner's form has, as rows: what no refused change may alter. */
  async function ownerRows() {
    const db = app.ctx.database.db;
    return {
      forms: await db.selectFrom('forms').selectAll().where('id', '=', formId).execute(),
      secrets: await db.selectFrom('formSecrets').select(['provider', 'secret', 'updatedAt']).where('formId', '=', formId).orderBy('provider').execute(),
      templates: await db.selectFrom('templates').selectAll().where('formId', '=', formId).orderBy('kind').execute(),
      submissions: await db.selectFrom('submissions').select(['id', 'status', 'searchText']).where('formId', '=', formId).orderBy('id').execute(),
      jobs: await db.selectFrom('jobs').select(['id', 'status', 'attempts', 'runAt']).orderBy('id').execute(),
      counts: await db.selectFrom('dailyCounts').selectAll().where('formId', '=', formId).execute(),
    };
  }

  const pages = () => [
    `/forms/${formId}`,
    `/forms/${formId}?search=Ada`,
    `/forms/${formId}/spam`,
    `/forms/${formId}/held`,
    `/forms/${formId}/setup`,
    `/forms/${formId}/settings`,
    `/forms/${formId}/settings/webhook-secret/rotate`,
    `/forms/${formId}/delete`,
    `/forms/${formId}/templates`,
    `/forms/${formId}/templates/notification`,
    `/forms/${formId}/templates/autoresponder`,
    `/forms/${formId}/templates/notification/preview`,
    `/forms/${formId}/templates/notification/delete`,
    `/forms/${formId}/deliveries`,
    `/forms/${formId}/deliveries?status=failed`,
    `/forms/${formId}/export?format=csv`,
    `/forms/${formId}/export?format=json`,
    `/forms/${formId}/test-submission/${accepted}`,
    `/submissions/${accepted}`,
    `/submissions/${spam}`,
    `/submissions/delete?id=${accepted}`,
    `/w/${owner.workspaceId}`,
    `/w/${owner.workspaceId}/submissions`,
    `/w/${owner.workspaceId}/submissions?search=Ada`,
    `/w/${owner.workspaceId}/export?format=csv`,
    `/w/${owner.workspaceId}/export?format=json`,
    `/w/${owner.workspaceId}/forms/new`,
  ];

  it('answers the 404 page on every page and export, telling nothing of what is there', async () => {
    for (const path of pages()) {
      const answer = await outsider.client.get(path);
      assert.equal(answer.status, 404, path);
      assert.match(answer.html, NOT_YOURS, path);
      for (const secret of PRIVATE) assert.ok(!answer.html.includes(secret), `${path} shows nothing of the owner's (${secret})`);
    }
    // the same pages for a form and a submission that do not exist: the same answer
    for (const path of [`/forms/nope`, `/forms/nope/settings`, `/forms/nope/export?format=csv`, `/submissions/nope`]) {
      assert.equal((await outsider.client.get(path)).status, 404, path);
    }
    // and the owner sees each of them (a page that does not exist for anyone proves nothing)
    for (const path of pages()) {
      const answer = await owner.client.get(path);
      assert.ok(answer.status === 200 || answer.status === 303, `${path}: ${answer.status}`);
    }
  });

  it('refuses every change with the 404 page, and nothing changes', async () => {
    const before = await ownerRows();
    await outsider.client.get(`/w/${outsider.workspaceId}`);
    const changes: [string, Record<string, string> | [string, string][]][] = [
      [`/forms/${formId}/settings`, { action: 'save', name: 'Taken over', notificationEmails: 'outsider@example.com' }],
      [`/forms/${formId}/settings/secrets/TURNSTILE`, { secret: 'outsider-secret' }],
      [`/forms/${formId}/settings/secrets/TURNSTILE/remove`, {}],
      [`/forms/${formId}/settings/webhook-secret`, {}],
      [`/forms/${formId}/settings/webhook-secret/rotate`, {}],
      [`/forms/${formId}/delete`, {}],
      [`/forms/${formId}/test-submission`, {}],
      [`/forms/${formId}/templates/notification`, { code: '<p>mine now</p>' }],
      [`/forms/${formId}/templates/notification/preview`, { code: '<p>{{data.name}}</p>' }],
      [`/forms/${formId}/templates/notification/test`, {}],
      [`/forms/${formId}/templates/notification/delete`, {}],
      [`/forms/${formId}/deliveries/${jobId}/retry`, {}],
      [`/forms/${formId}/deliveries/retry-failed`, {}],
      [`/forms/${outsider.workspaceId}/deliveries/${jobId}/retry`, {}],
      ['/submissions/delete', { id: accepted }],
      [`/submissions/${spam}/not-spam`, {}],
      [`/w/${owner.workspaceId}/forms/new`, { name: 'Planted form' }],
    ];
    for (const [path, fields] of changes) {
      const answer = await outsider.client.post(path, fields);
      assert.equal(answer.status, 404, path);
      for (const secret of PRIVATE) assert.ok(!answer.html.includes(secret), `${path} shows nothing of the owner's (${secret})`);
    }
    assert.deepEqual(await ownerRows(), before);
    const planted = await app.ctx.database.db.selectFrom('forms').select('id').where('workspaceId', '=', owner.workspaceId).execute();
    assert.deepEqual(
      planted.map((f) => f.id),
      [formId],
    );
  });
});
