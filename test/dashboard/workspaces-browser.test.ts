import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium, newPage } from '../helpers/browser.js';
import { signUp } from '../helpers/dashboard.js';

describe('dashboard in Chromium: workspaces, settings and the admin page', { skip: needsChromium }, () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;

  before(async () => {
    app = await startApp();
    browser = await launchBrowser();
    page = await newPage(browser);
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  /** The header's disclosure menu (workspace switcher, account menu), named by its hidden prefix. */
  const menu = (name: 'Workspace' | 'Account') => page.locator('summary').filter({ hasText: new RegExp(`^${name}: `) });

  /** Chooses a plan for a workspace on the admin page and waits for the page that shows the result. */
  async function changePlan(workspaceName: string, plan: string): Promise<void> {
    await page.goto(`${app.publicUrl}/admin`);
    await page.getByLabel(`Plan for ${workspaceName}`).selectOption(plan);
    const row = page.getByRole('row').filter({ has: page.getByLabel(`Plan for ${workspaceName}`) });
    await Promise.all([page.waitForURL(/\/admin$/), row.getByRole('button', { name: 'Change plan' }).click()]);
  }

  it('creates a workspace, switches to it, renames it, and the admin changes its plan', async () => {
    await signUp(page, app, 'admin@example.com', 'correct horse battery');

    // the free workspace is the one the account may have: a second one is refused at the form
    await menu('Workspace').click();
    await Promise.all([page.waitForURL(/\/workspaces$/), page.getByRole('link', { name: 'All workspaces' }).click()]);
    await checkPage(page, 'workspaces');
    await Promise.all([page.waitForURL(/\/workspaces\/new$/), page.getByRole('link', { name: 'New workspace' }).first().click()]);
    await checkPage(page, 'workspaces-new');
    await page.getByLabel('Name').fill('Client site');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /one free workspace/ })
      .waitFor();
    await checkPage(page, 'workspaces-new-refused');

    // the instance admin upgrades it; then a second workspace may be created
    await menu('Account').click();
    await Promise.all([page.waitForURL(/\/admin$/), page.getByRole('link', { name: 'Admin' }).click()]);
    await changePlan('My workspace', 'BUNDLE_50000');
    assert.match(await page.getByRole('status').innerText(), /changed to Upgraded \(50,000 submissions\); 0 held submissions released/);

    await page.goto(`${app.publicUrl}/workspaces/new`);
    await page.getByLabel('Name').fill('Client site');
    await Promise.all([page.waitForURL(/\/w\/[a-z2-7]+$/), page.getByRole('button', { name: 'Create workspace' }).click()]);
    assert.equal(await page.getByRole('status').innerText(), 'Workspace created');
    const clientUrl = page.url();

    // back to the first one, then to the new one with the switcher
    await menu('Workspace').click();
    await Promise.all([page.waitForURL(/\/w\/[a-z2-7]+$/), page.getByRole('link', { name: 'My workspace' }).click()]);
    assert.notEqual(page.url(), clientUrl);
    await menu('Workspace').click();
    await Promise.all([page.waitForURL(clientUrl), page.getByRole('link', { name: 'Client site' }).click()]);
    assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), 'Client site');

    await Promise.all([page.waitForURL(/\/settings$/), page.getByRole('link', { name: 'Settings' }).click()]);
    await page.getByLabel('Name').fill('');
    await page.getByRole('button', { name: 'Rename workspace' }).click();
    await page.getByText('Must be 1 to 128 characters.').waitFor();
    await page.getByLabel('Name').fill('Client site (Acme)');
    await Promise.all([page.waitForURL(/\/settings$/), page.getByRole('button', { name: 'Rename workspace' }).click()]);
    assert.equal(await page.getByRole('status').innerText(), 'Workspace renamed');
    assert.match(await menu('Workspace').innerText(), /Client site \(Acme\)/);
    await checkPage(page, 'workspace-settings');

    await changePlan('Client site (Acme)', 'DEALIFY');
    assert.match(await page.getByRole('status').innerText(), /Plan of "Client site \(Acme\)" changed to Upgraded \(Dealify\)/);
    assert.equal(await page.getByLabel('Plan for Client site (Acme)').inputValue(), 'DEALIFY');
    await checkPage(page, 'admin');

    await page.goto(`${app.publicUrl}/workspaces`);
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'Client site (Acme)' }) });
    assert.match(await row.innerText(), /Upgraded \(Dealify\)/);
  });
});
