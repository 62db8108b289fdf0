import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium } from '../helpers/browser.js';
import { signedUpOwner } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';

const PASSWORD = 'correct horse battery';
const visitor = visitorAddresses(73);

/** Issue 41, item 8, in Chromium: filters combined from the form, saved as a view, counted, shown and deleted. */
describe(`dashboard in Chromium: the inbox's filters and saved views (${TEST_DIALECT})`, { skip: needsChromium }, () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let workspaceId: string;

  before(async () => {
    app = await startApp();
    browser = await launchBrowser();
    let userId: string;
    ({ page, userId, workspaceId } = await signedUpOwner(browser, app, 'owner@example.com', PASSWORD));
    const contact = (await app.ctx.forms.createForm(userId, workspaceId, { name: 'Contact' })).id;
    const jobs = (await app.ctx.forms.createForm(userId, workspaceId, { name: 'Jobs' })).id;
    for (const [formId, name] of [
      [contact, 'Ann'],
      [jobs, 'Bob'],
      [jobs, 'Cy'],
    ] as const) {
      assert.equal((await postJson(app, formId, { name, message: `Hello from ${name}` }, visitor())).status, 200);
    }
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  const lines = () => page.getByRole('table', { name: /submissions/i });

  it('filters by form and unread from More filters, saves the view, counts it, and deletes it', async () => {
    await page.goto(`${app.publicUrl}/w/${workspaceId}/submissions`);
    await page.getByText('More filters').click();
    await page.getByLabel('Form').selectOption({ label: 'Jobs' });
    await page.getByRole('checkbox', { name: 'Unread' }).check();
    await Promise.all([page.waitForURL(/form=/), page.getByRole('button', { name: 'Filter' }).click()]);
    assert.deepEqual(
      (await lines().getByRole('link').allInnerTexts()).map((text) => text.replace(/\s*\(unread\)$/, '')).filter((t) => t !== 'Jobs'),
      ['Cy', 'Bob'],
    );

    await page.getByText('Save this view').click();
    await page.getByLabel('Name').fill('Jobs to read');
    await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Save view' }).click()]);
    assert.ok(await page.getByText('View “Jobs to read” saved').isVisible());
    const views = page.getByRole('navigation', { name: 'Views' });
    const saved = views.getByRole('link', { name: 'Jobs to read 2' });
    assert.equal(await saved.getAttribute('aria-current'), 'page');
    await checkPage(page, 'inbox-saved-view');

    await views.getByRole('link', { name: /^Open/ }).click();
    await page.waitForURL((url) => url.search === '');
    await Promise.all([page.waitForURL(/form=/), views.getByRole('link', { name: 'Jobs to read 2' }).click()]);
    assert.equal(await lines().getByRole('link', { name: /^Ann/ }).count(), 0, 'the view, as saved');
    await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Delete the view “Jobs to read”' }).click()]);
    assert.ok(await page.getByText('View “Jobs to read” deleted').isVisible());
    assert.equal(await views.getByRole('link', { name: /Jobs to read/ }).count(), 0);
  });
});
