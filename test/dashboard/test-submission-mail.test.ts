// "Send a test submission" without an SMTP server (issue 39, item 6): the emails are only written to
// files of the mail folder, and the page must say so, not "Delivered".
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { until } from '../helpers/eventually.js';
import { person } from '../helpers/members.js';

describe(`dashboard: a test submission's emails without SMTP (${TEST_DIALECT})`, () => {
  let app: TestApp;
  before(async () => {
    // no FORMGATE_SMTP_URL: every email goes to the outbox folder
    app = await startApp({}, { delivery: true });
  });
  after(async () => {
    await app?.close();
  });

  it('says an email was written to a file of the mail folder, not that it was delivered', async () => {
    const owner = await person(app, 'no-smtp');
    const form = await app.ctx.forms.createForm(owner.userId, owner.workspaceId, { name: 'Contact', notificationEmails: [owner.email] });
    await owner.client.get(`/forms/${form.id}/setup`);
    const answer = await owner.client.post(`/forms/${form.id}/test-submission`, {});
    assert.equal(answer.status, 303, answer.html.slice(0, 400));
    const db = app.ctx.database.db;
    await until('the notification is written', async () =>
      (await db.selectFrom('jobs').select('status').where('kind', '=', 'notification').execute()).some((j) => j.status === 'done'),
    );

    const page = await owner.client.get(answer.location!);
    assert.equal(page.status, 200);
    const row = /<td data-label="Status">(.*?)<\/td>/s.exec(page.html)?.[1] ?? '';
    assert.match(row, /Written to a file/);
    assert.match(row, /in the mail folder, not sent: no SMTP server is configured/);
    assert.doesNotMatch(page.html, />Delivered</);
  });
});
