import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { toFormResource } from '../../src/services/forms.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium } from '../helpers/browser.js';
import { signUp } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { insertSubmissionWithFiles } from '../helpers/submission-files.js';

const MB = 1024 * 1024;

describe(`dashboard in Chromium: file uploads (${TEST_DIALECT})`, { skip: needsChromium }, () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let userId: string;
  let workspaceId: string;
  let formId: string;

  before(async () => {
    app = await startApp();
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    page = await context.newPage();
    await signUp(page, app, 'owner@example.com', 'correct horse battery');
    userId = (await app.ctx.users.requireByEmail('owner@example.com')).id;
    workspaceId = new URL(page.url()).pathname.split('/')[2]!;
    formId = (await app.ctx.forms.createForm(userId, workspaceId, { name: 'Job application' })).id;
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  it('the settings’ File uploads panel saves the limits in MB and refuses one over the plan’s ceiling beside its field', async () => {
    await page.goto(`${app.publicUrl}/forms/${formId}/settings`);
    await page.getByRole('heading', { name: 'File uploads' }).scrollIntoViewIfNeeded();
    await checkPage(page, 'form-settings-uploads');
    assert.equal(await page.getByLabel('Accept file uploads').isChecked(), true);
    await page.getByLabel('Largest file (MB)').fill('5');
    await page.getByLabel('All files of a submission (MB)').fill('20');
    await page.getByLabel('Allowed types').fill('.pdf, .docx, image/*');
    await Promise.all([page.waitForURL(/\?saved=file-uploads#file-uploads$/), page.getByRole('button', { name: 'Save file uploads' }).click()]);
    const saved = toFormResource(await app.ctx.forms.getForm(userId, formId));
    assert.deepEqual(saved.fileUploads, { maxFileSize: 5 * MB, maxTotalSize: 20 * MB, allowedTypes: ['.pdf', '.docx', 'image/*'] });

    // a free workspace allows 10 MB a file
    await page.getByLabel('Largest file (MB)').fill('11');
    await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.getByRole('button', { name: 'Save file uploads' }).click()]);
    await page
      .locator('#field-uploadMaxFileSizeMb-error')
      .filter({ hasText: 'The largest file can be at most 10 MB: a FREE workspace allows no more.' })
      .waitFor();
    assert.equal(await page.getByLabel('Largest file (MB)').getAttribute('aria-invalid'), 'true');
    assert.deepEqual(toFormResource(await app.ctx.forms.getForm(userId, formId)).fileUploads, saved.fileUploads);

    await page.goto(`${app.publicUrl}/forms/${formId}/settings`);
    await page.getByLabel('Accept file uploads').uncheck();
    await Promise.all([page.waitForURL(/\?saved=file-uploads#file-uploads$/), page.getByRole('button', { name: 'Save file uploads' }).click()]);
    assert.equal(toFormResource(await app.ctx.forms.getForm(userId, formId)).fileUploads, null);
  });

  it('the inbox marks the submission, its page lists the files and downloads one; the workspace shows the storage used', async () => {
    const form = { id: formId, workspaceId };
    const { submissionId } = await insertSubmissionWithFiles(
      app,
      form,
      [
        { field: 'cv', name: 'Ada Lovelace – CV.pdf', type: 'application/pdf', bytes: Buffer.alloc(182_000, 7) },
        { field: 'portfolio', name: 'portfolio.png', type: 'image/png', bytes: Buffer.alloc(2_400_000, 3) },
        { field: 'portfolio', name: 'sketch.tiff', type: 'image/tiff', bytes: null, droppedReason: 'The workspace’s file storage is used up.' },
      ],
      { fields: { name: 'Ada Lovelace', email: 'ada@example.com', message: 'Please find my CV attached.' } },
    );
    await insertSubmissionWithFiles(app, form, [], { fields: { name: 'Grace Hopper', email: 'grace@example.com', message: 'No attachment.' } });

    await page.goto(`${app.publicUrl}/forms/${formId}`);
    assert.equal(await page.getByRole('img', { name: '2 files' }).count(), 1);
    await checkPage(page, 'inbox-with-files');

    await page.goto(`${app.publicUrl}/submissions/${submissionId}`);
    const files = page.getByRole('table').filter({ has: page.getByRole('columnheader', { name: 'File' }) });
    assert.ok(await files.getByRole('cell', { name: 'Ada Lovelace – CV.pdf', exact: true }).isVisible());
    assert.ok(await files.getByRole('cell', { name: '177.7 KB', exact: true }).isVisible());
    assert.ok(await files.getByRole('cell', { name: '2.3 MB', exact: true }).isVisible());
    assert.ok(await files.getByText('Dropped: The workspace’s file storage is used up.').isVisible());
    await checkPage(page, 'submission-files');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download portfolio.png' }).click()]);
    assert.equal(download.suggestedFilename(), 'portfolio.png');

    await page.goto(`${app.publicUrl}/w/${workspaceId}`);
    assert.ok(await page.getByText('File storage used').isVisible());
    assert.ok(await page.getByText('2.5 MB').isVisible());
    await checkPage(page, 'workspace-file-storage');
  });
});
