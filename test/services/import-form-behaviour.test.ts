import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { toFormResource } from '../../src/services/forms.js';
import { checkForm } from '../../src/services/import-checks.js';
import { ImportService } from '../../src/services/imports.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { createAccount, type Account } from '../helpers/fixtures.js';
import { OutboundGuard } from '../../src/net/outbound-guard.js';

describe(`import: a form's behaviour and state from another Formgate (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let account: Account;
  let imports: ImportService;

  before(async () => {
    app = await startApp();
    account = await createAccount(app);
    imports = new ImportService(app.ctx.database, app.ctx.users, false);
  });
  after(() => app?.close());

  it('writes what passes the rules, drops and names what does not; a source without them gives the defaults', async () => {
    const checked = checkForm(
      {
        id: 'imported-rules',
        name: 'Imported',
        workspaceId: 'source-workspace',
        redirectUrl: 'https://example.com/thanks',
        thanksTitle: 'Merci',
        notificationSubject: 'Line\r\nBcc: x@example.com',
        paused: true,
        closesAt: '2031-01-01T00:00:00.000Z',
        maxSubmissions: 0,
      },
      new OutboundGuard({ allowPrivate: false }),
    );
    assert.ok(!('problem' in checked));
    assert.deepEqual(checked.dropped, [
      'notificationSubject "Line\\r\\nBcc: x@example.com" (must be one line, without line breaks or control characters)',
      'maxSubmissions 0 (must be a whole number from 1 to 10000000, or null for no cap)',
    ]);
    assert.equal((await imports.importForm(account.userId, account.workspaceId, checked)).outcome, 'created');
    const form = toFormResource(await app.ctx.forms.getForm(account.userId, 'imported-rules'));
    assert.equal(form.redirectUrl, 'https://example.com/thanks');
    assert.equal(form.thanksTitle, 'Merci');
    assert.equal(form.notificationSubject, null);
    assert.equal(form.paused, true);
    assert.equal(form.closesAt, '2031-01-01T00:00:00.000Z');
    assert.equal(form.maxSubmissions, null);

    const plain = checkForm({ id: 'imported-plain-rules', name: 'Hosted', workspaceId: 'source-workspace' }, new OutboundGuard({ allowPrivate: false }));
    assert.ok(!('problem' in plain));
    await imports.importForm(account.userId, account.workspaceId, plain);
    const hosted = toFormResource(await app.ctx.forms.getForm(account.userId, 'imported-plain-rules'));
    assert.equal(hosted.paused, false);
    assert.equal(hosted.redirectUrl, null);
  });
});
