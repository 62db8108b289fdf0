// Issue 38, item 17: a visitor's filename with bidirectional controls (`a\u202Efdp.txt` shows as
// `atxt.pdf`) is stored without them, and a name stored before is cleaned wherever it is shown.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { storedFilesOfSubmissions } from '../../src/db/delivered-files.js';
import { compactValue } from '../../src/dashboard/submission-fields.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { createAccount, createForm } from '../helpers/fixtures.js';
import { JSON_ACCEPT, request } from '../helpers/submit.js';

/** A multipart post of one text field and one file whose name is sent as RFC 5987 `filename*` (any character). */
function post(encodedName: string): { body: Buffer; contentType: string } {
  const boundary = `----formgate${Math.random().toString(16).slice(2)}`;
  const body = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nAda\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="invoice"; filename*=UTF-8''${encodedName}\r\nContent-Type: text/plain\r\n\r\nhello\r\n` +
      `--${boundary}--\r\n`,
  );
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

describe(`upload names without bidirectional controls (${TEST_DIALECT})`, () => {
  let app: TestApp;

  before(async () => {
    app = await startApp();
  });
  after(() => app.close());

  it('stores `a\\u202Efdp.txt` as `afdp.txt`, in data and in its row, and cleans a name stored before as it leaves', async () => {
    const account = await createAccount(app);
    const form = await createForm(app, account);
    const built = post('a%E2%80%AEfdp%E2%81%A6.txt');
    const answer = await request('POST', `${app.submitUrl}/${form.id}`, built.body, { 'content-type': built.contentType, accept: JSON_ACCEPT });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.data.invoice.name, 'afdp.txt');
    const row = await app.ctx.database.db.selectFrom('submissionFiles').selectAll().where('formId', '=', form.id).executeTakeFirstOrThrow();
    assert.equal(row.name, 'afdp.txt');

    // a name kept by an earlier version: shown (dashboard, deliveries, downloads) without its controls
    await app.ctx.database.db.updateTable('submissionFiles').set({ name: 'b\u202Efdp.txt' }).where('id', '=', row.id).execute();
    const listed = (await app.ctx.submissionFiles.filesOf([answer.body.id])).get(answer.body.id)!;
    assert.equal(listed[0]!.name, 'bfdp.txt');
    const delivered = (await storedFilesOfSubmissions(app.ctx.database.db, [answer.body.id])).get(answer.body.id)!;
    assert.equal(delivered[0]!.name, 'bfdp.txt');
    const download = await app.ctx.submissionFiles.download(row.id, { signed: true });
    download.body.destroy();
    assert.equal(download.name, 'bfdp.txt');
    assert.equal(compactValue({ ...answer.body.data.invoice, name: 'c\u202Efdp.txt' }), 'cfdp.txt');
  });
});
