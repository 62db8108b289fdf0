import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_FILE_UPLOADS } from '../../src/domain/uploads.js';
import { toFormResource } from '../../src/services/forms.js';
import { checkForm } from '../../src/services/import-checks.js';
import { ImportService } from '../../src/services/imports.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { createAccount, type Account } from '../helpers/fixtures.js';
import { OutboundGuard } from '../../src/net/outbound-guard.js';

const MB = 1024 * 1024;

describe(`import: fileUploads written, capped to the importing plan, differences named (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let free: Account;
  let imports: ImportService;

  before(async () => {
    app = await startApp();
    free = await createAccount(app, { plan: 'FREE' });
    imports = new ImportService(app.ctx.database, app.ctx.users, false);
  });
  after(() => app?.close());

  const importing = async (id: string, fileUploads: unknown) => {
    const checked = checkForm({ id, name: 'Imported', workspaceId: 'source-workspace', fileUploads }, new OutboundGuard({ allowPrivate: false }));
    assert.ok(!('problem' in checked));
    return imports.importForm(free.userId, free.workspaceId, checked);
  };
  const read = async (id: string) => toFormResource(await app.ctx.forms.getForm(free.userId, id)).fileUploads;

  it('writes the source’s limits, capped to a FREE workspace’s ceilings; null is off; the defaults stay the defaults', async () => {
    assert.equal((await importing('imported-big', { maxFileSize: 50 * MB, maxTotalSize: 200 * MB, allowedTypes: ['.pdf'] })).outcome, 'created');
    assert.deepEqual(await read('imported-big'), { maxFileSize: 10 * MB, maxTotalSize: 25 * MB, allowedTypes: ['.pdf'] });
    await importing('imported-off', null);
    assert.equal(await read('imported-off'), null);
    await importing('imported-plain', undefined);
    assert.deepEqual(await read('imported-plain'), DEFAULT_FILE_UPLOADS);
    const row = await app.ctx.database.db.selectFrom('forms').select('uploadLimits').where('id', '=', 'imported-plain').executeTakeFirstOrThrow();
    assert.equal(row.uploadLimits, null);
  });

  it('a form already here keeps its own, and a difference is named', async () => {
    await importing('imported-again', { maxFileSize: MB });
    const again = await importing('imported-again', null);
    assert.equal(again.outcome, 'existing');
    assert.deepEqual(again.differs, ['fileUploads']);
    assert.deepEqual((await importing('imported-again', { maxFileSize: MB })).differs, []);
    assert.equal((await read('imported-again'))?.maxFileSize, MB);
  });
});
