import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Database } from '../../src/db/database.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { JSON_ACCEPT, post, postJson, storedRows } from '../helpers/submit.js';

let sent = 0;
// a new message each time: the automatic filter counts a visitor's repeats of one content as spam
const contact = () => ({ name: 'Grace Hopper', email: 'grace@example.com', message: `About the casino night, take ${++sent}` });

/**
 * Intake keeps the forms it has looked up (on SQLite; db/kept-rows.ts). A change to a form,
 * whoever makes it, applies to the next submission all the same: through the API, or written by
 * another process, as the admin commands are.
 */
describe(`submit surface: a changed form applies to the next submission (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let account: Account;
  let otherProcess: Database;
  before(async () => {
    app = await startApp();
    account = await createAccount(app);
    otherProcess = Database.open(app.ctx.config.database);
  });
  after(async () => {
    await otherProcess.destroy();
    await app.close();
  });

  const statuses = async (formId: string) => (await storedRows(app, formId)).map((row) => row.status);
  const ok = async (formId: string) => assert.equal((await postJson(app, formId, contact())).status, 200);

  it('a form changed through the API', async () => {
    const form = await createForm(app, account);
    await ok(form.id);
    const patched = await app.api('PATCH', `/forms/${form.id}`, { token: account.token, body: { customSpamWords: 'casino' } });
    assert.equal(patched.status, 200);
    await ok(form.id);
    assert.deepEqual(await statuses(form.id), ['accepted', 'spam']);
  });

  it('a form changed by another process', async () => {
    const form = await createForm(app, account);
    await ok(form.id);
    await otherProcess.db.updateTable('forms').set({ customSpamWords: 'casino' }).where('id', '=', form.id).execute();
    await ok(form.id);
    await otherProcess.db.updateTable('forms').set({ customSpamWords: null }).where('id', '=', form.id).execute();
    await ok(form.id);
    assert.deepEqual(await statuses(form.id), ['accepted', 'spam', 'accepted']);
  });

  it('allowed origins set through the API and changed by another process', async () => {
    const form = await createForm(app, account);
    const fromSite = (site: string) => post(app, form.id, contact(), { headers: { origin: site }, accept: JSON_ACCEPT });
    assert.equal((await fromSite('https://elsewhere.example.net')).status, 200, 'no list: any site');
    const patched = await app.api('PATCH', `/forms/${form.id}`, { token: account.token, body: { allowedOrigins: ['https://example.com'] } });
    assert.equal(patched.status, 200);
    assert.equal((await fromSite('https://elsewhere.example.net')).status, 403, 'the list applies to the next submission');
    assert.equal((await fromSite('https://example.com')).status, 200);
    await otherProcess.db
      .updateTable('forms')
      .set({ allowedOrigins: JSON.stringify(['https://elsewhere.example.net']) })
      .where('id', '=', form.id)
      .execute();
    assert.equal((await fromSite('https://example.com')).status, 403, 'a list changed by another process applies too');
    assert.equal((await fromSite('https://elsewhere.example.net')).status, 200);
  });

  it('an autoresponder paused by another process', async () => {
    const form = await createForm(app, account);
    const template = { mode: 'code', code: 'Thanks, {{name}}!' };
    assert.equal((await app.api('PUT', `/forms/${form.id}/templates/autoresponder`, { token: account.token, body: template })).status, 200);
    const kinds = async () => {
      const [latest] = (await storedRows(app, form.id)).slice(-1);
      return (await app.ctx.database.db.selectFrom('jobs').select('kind').where('submissionId', '=', latest!.id).execute()).map((job) => job.kind);
    };
    await ok(form.id);
    assert.deepEqual(await kinds(), ['autoresponder']);
    await otherProcess.db.updateTable('templates').set({ paused: 1 }).where('formId', '=', form.id).execute();
    await ok(form.id);
    assert.deepEqual(await kinds(), [], 'paused: no answer to the submitter');
  });

  it('a form deleted by another process, and one whose workspace was deleted', async () => {
    const form = await createForm(app, account);
    await ok(form.id);
    await otherProcess.db.deleteFrom('forms').where('id', '=', form.id).execute();
    assert.equal((await postJson(app, form.id, contact())).status, 404);

    const owner = await createAccount(app);
    const inWorkspace = await createForm(app, owner);
    await ok(inWorkspace.id);
    await otherProcess.db.deleteFrom('workspaces').where('id', '=', owner.workspaceId).execute();
    assert.equal((await postJson(app, inWorkspace.id, contact())).status, 404, 'gone with its workspace (ON DELETE CASCADE)');
  });
});
