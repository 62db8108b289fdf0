import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ALLOWED_TYPES_MAX, DEFAULT_FILE_UPLOADS, uploadCeilings } from '../../src/domain/uploads.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { assertJson, assertValidation } from '../helpers/problems.js';

const MB = 1024 * 1024;
const UPGRADED = uploadCeilings('BUNDLE_50000');

/** Values of `fileUploads` refused on any plan, with the field the problem names. */
const REFUSED: [unknown, string][] = [
  [{ maxFileSize: 0 }, 'fileUploads.maxFileSize'],
  [{ maxFileSize: -1 }, 'fileUploads.maxFileSize'],
  [{ maxFileSize: 1.5 }, 'fileUploads'],
  [{ maxTotalSize: '10' }, 'fileUploads'],
  [{ maxFileSize: 2 * MB, maxTotalSize: MB }, 'fileUploads.maxFileSize'],
  [{ maxFileSize: UPGRADED.maxFileSize + 1 }, 'fileUploads.maxFileSize'],
  [{ maxTotalSize: UPGRADED.maxTotalSize + 1 }, 'fileUploads.maxTotalSize'],
  [{ allowedTypes: [] }, 'fileUploads'],
  [{ allowedTypes: Array.from({ length: ALLOWED_TYPES_MAX + 1 }, (_, i) => `.x${i}`) }, 'fileUploads'],
  [{ allowedTypes: ['pdf'] }, 'fileUploads.allowedTypes'],
  [{ allowedTypes: ['.pdf', 'text/<script>'] }, 'fileUploads.allowedTypes'],
  [{ allowedTypes: ['.pdf', `.${'a'.repeat(100)}`] }, 'fileUploads'],
  [{ allowedTypes: [1] }, 'fileUploads'],
  [{ maxFileSize: MB, colour: 'red' }, 'fileUploads'],
  ['on', 'fileUploads'],
  [true, 'fileUploads'],
  [[], 'fileUploads'],
];

describe('fileUploads on the Form resource', () => {
  let app: TestApp;
  let upgraded: Account;
  let free: Account;

  before(async () => {
    app = await startApp();
    upgraded = await createAccount(app);
    free = await createAccount(app, { plan: 'FREE' });
  });
  after(() => app.close());

  it('every form starts with uploads on at the defaults, and intake reads them', async () => {
    const form = await createForm(app, upgraded);
    assert.deepEqual(form.fileUploads, DEFAULT_FILE_UPLOADS);
    const read = await app.api('GET', `/forms/${form.id}`, { token: upgraded.token });
    assert.deepEqual(read.body.fileUploads, DEFAULT_FILE_UPLOADS);
    const intake = await app.ctx.forms.getIntakeForm(form.id);
    assert.equal(intake?.uploadsEnabled, true);
    assert.deepEqual(intake?.uploadLimits, DEFAULT_FILE_UPLOADS);
  });

  it('is set on create; an object replaces the limits whole, a missing key at its default', async () => {
    const form = await createForm(app, upgraded, { fileUploads: { maxFileSize: 2 * MB, allowedTypes: ['.PDF', 'image/*'] } });
    assert.deepEqual(form.fileUploads, { maxFileSize: 2 * MB, maxTotalSize: DEFAULT_FILE_UPLOADS.maxTotalSize, allowedTypes: ['.PDF', 'image/*'] });
    const patched = await app.api('PATCH', `/forms/${form.id}`, { token: upgraded.token, body: { fileUploads: { maxTotalSize: 50 * MB } } });
    assertJson(patched, 200);
    assert.deepEqual(patched.body.fileUploads, { ...DEFAULT_FILE_UPLOADS, maxTotalSize: 50 * MB });
    const intake = await app.ctx.forms.getIntakeForm(form.id);
    assert.deepEqual(intake?.uploadLimits, { ...DEFAULT_FILE_UPLOADS, maxTotalSize: 50 * MB });
  });

  it('null turns uploads off; {} turns them back on at the defaults; other settings leave it alone', async () => {
    const form = await createForm(app, upgraded, { fileUploads: null });
    assert.equal(form.fileUploads, null);
    assert.equal((await app.ctx.forms.getIntakeForm(form.id))?.uploadsEnabled, false);
    const renamed = await app.api('PATCH', `/forms/${form.id}`, { token: upgraded.token, body: { name: 'Renamed' } });
    assert.equal(renamed.body.fileUploads, null);
    const on = await app.api('PATCH', `/forms/${form.id}`, { token: upgraded.token, body: { fileUploads: {} } });
    assert.deepEqual(on.body.fileUploads, DEFAULT_FILE_UPLOADS);
    const row = await app.ctx.database.db.selectFrom('forms').select(['uploadsEnabled', 'uploadLimits']).where('id', '=', form.id).executeTakeFirstOrThrow();
    assert.deepEqual(row, { uploadsEnabled: 1, uploadLimits: null });
  });

  it('accepts the ceilings of the plan exactly', async () => {
    const atCeiling = { maxFileSize: UPGRADED.maxFileSize, maxTotalSize: UPGRADED.maxTotalSize, allowedTypes: ['application/*'] };
    const form = await createForm(app, upgraded, { fileUploads: atCeiling });
    assert.deepEqual(form.fileUploads, atCeiling);
    const many = Array.from({ length: ALLOWED_TYPES_MAX }, (_, i) => `.x${i}`);
    const patched = await app.api('PATCH', `/forms/${form.id}`, { token: upgraded.token, body: { fileUploads: { allowedTypes: many } } });
    assertJson(patched, 200);
  });

  it('a FREE workspace is held to its own ceilings (through the dashboard’s service)', async () => {
    const ceilings = uploadCeilings('FREE');
    const form = await app.ctx.forms.createForm(free.userId, free.workspaceId, { name: 'Free' });
    await assert.rejects(
      app.ctx.forms.updateForm(free.userId, form.id, { fileUploads: { maxFileSize: ceilings.maxFileSize + 1, maxTotalSize: ceilings.maxTotalSize } }),
      (error: any) => error.code === 'validation_error' && error.extra.errors.some((e: string) => e.startsWith('fileUploads.maxFileSize: a FREE workspace')),
    );
    await assert.rejects(
      app.ctx.forms.updateForm(free.userId, form.id, { fileUploads: { maxTotalSize: ceilings.maxTotalSize + 1 } }),
      (error: any) => error.code === 'validation_error',
    );
    const fine = await app.ctx.forms.updateForm(free.userId, form.id, {
      fileUploads: { maxFileSize: ceilings.maxFileSize, maxTotalSize: ceilings.maxTotalSize },
    });
    assert.equal(fine.uploadsEnabled, 1);
  });

  for (const [value, field] of REFUSED) {
    it(`refuses ${JSON.stringify(value).slice(0, 60)} on create and PATCH, naming ${field}, changing nothing`, async () => {
      const created = await app.api('POST', '/forms', { token: upgraded.token, body: { workspaceId: upgraded.workspaceId, name: 'X', fileUploads: value } });
      assertValidation(app, created, field);
      const form = await createForm(app, upgraded);
      const patched = await app.api('PATCH', `/forms/${form.id}`, { token: upgraded.token, body: { fileUploads: value, name: 'Changed' } });
      assertValidation(app, patched, field);
      const read = await app.api('GET', `/forms/${form.id}`, { token: upgraded.token });
      assert.equal(read.body.name, 'Contact');
      assert.deepEqual(read.body.fileUploads, DEFAULT_FILE_UPLOADS);
    });
  }
});
