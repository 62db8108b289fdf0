import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium } from '../helpers/browser.js';
import { signUp } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { insertSubmission } from '../helpers/export.js';

describe(`dashboard in Chromium: erasing a person (${TEST_DIALECT})`, { skip: needsChromium }, () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let userId: string;
  let workspaceId: string;

  before(async () => {
    app = await startApp();
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await signUp(page, app, 'owner@example.com', 'correct horse battery');
    userId = (await app.ctx.users.requireByEmail('owner@example.com')).id;
    workspaceId = new URL(page.url()).pathname.split('/')[2]!;
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  it('finds the submissions holding an address from the workspace settings, asks, and deletes them', async () => {
    const form = await app.ctx.forms.createForm(userId, workspaceId, { name: 'Contact' });
    const ids = [
      await insertSubmission(app, form, { email: 'ann@example.com', message: 'Hello' }, Date.now()),
      await insertSubmission(app, form, { name: 'Ann', note: 'or Ann@Example.com at work' }, Date.now()),
    ];
    const other = await insertSubmission(app, form, { email: 'joann@example.com' }, Date.now());

    await page.goto(`${app.publicUrl}/w/${workspaceId}/settings`);
    await Promise.all([page.waitForURL(/\/erase$/), page.getByRole('link', { name: 'Erase a person’s submissions…' }).click()]);
    assert.ok(await page.getByRole('heading', { name: 'Erase a person’s submissions', level: 1 }).isVisible());
    await checkPage(page, 'erasure');

    await page.getByLabel('Email address').fill('ann@example.com');
    await page.getByRole('button', { name: 'Find submissions' }).click();
    await page.getByRole('status').filter({ hasText: '2 submissions of this workspace hold ann@example.com.' }).waitFor();
    assert.ok(await page.getByText('This cannot be undone.').isVisible());
    await checkPage(page, 'erasure-confirm');

    await Promise.all([page.waitForURL(/\/erase$/), page.getByRole('button', { name: 'Delete 2 submissions' }).click()]);
    assert.ok(await page.getByRole('status').filter({ hasText: 'Erased: 2 submissions deleted.' }).isVisible());
    const left = await app.ctx.database.db.selectFrom('submissions').select('id').where('formId', '=', form.id).execute();
    assert.deepEqual(
      left.map((row) => row.id),
      [other],
    );
    assert.ok(!ids.some((id) => left.some((row) => row.id === id)));

    // refused: the message beside the field, tied to it
    await page.getByLabel('Email address').fill('not an address');
    await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.getByRole('button', { name: 'Find submissions' }).click()]);
    await page.getByText('Must be an email address, such as ann@example.com.').waitFor();
    assert.equal(await page.getByLabel('Email address').getAttribute('aria-invalid'), 'true');
    await checkPage(page, 'erasure-refused');
  });
});
