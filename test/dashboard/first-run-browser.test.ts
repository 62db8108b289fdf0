import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium, newPage } from '../helpers/browser.js';
import { TEST_DIALECT } from '../helpers/database.js';

const PASSWORD = 'correct horse battery';

describe(`dashboard in Chromium: setting up Formgate and its admin page (${TEST_DIALECT})`, { skip: needsChromium }, () => {
  let browser: Browser;
  let app: TestApp;
  let page: Page;

  before(async () => {
    browser = await launchBrowser();
    app = await startApp();
    page = await newPage(browser);
  });
  after(async () => {
    await page?.context().close();
    await browser?.close();
    await app?.close();
  });

  it('opens on "Set up Formgate", creates the admin and the named workspace in team mode, which speaks no plans', async () => {
    await page.goto(`${app.publicUrl}/`);
    assert.match(page.url(), /\/setup$/);
    assert.ok(await page.getByRole('heading', { name: 'Set up Formgate' }).isVisible());
    assert.equal(await page.getByRole('radio', { name: 'For me and my team' }).isChecked(), true);
    assert.equal(await page.getByRole('radio', { name: 'Hosting forms for others' }).isChecked(), false);
    await checkPage(page, 'first-run-setup');

    // the first workspace's name, offered (the installation is at an address, so no organisation to guess) and required
    const name = page.getByLabel('Workspace name');
    assert.equal(await name.inputValue(), 'Our team');
    await page.getByLabel('Email').fill('owner@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await name.fill('');
    await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.getByRole('button', { name: 'Create the admin account' }).click()]);
    assert.equal(await page.getByLabel('Workspace name').getAttribute('aria-invalid'), 'true');
    assert.ok(await page.getByText('Must be 1 to 128 characters.').isVisible());
    await checkPage(page, 'first-run-setup-refused');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByLabel('Workspace name').fill('Acme Studio');
    await Promise.all([page.waitForURL(/\/w\/[^/]+$/), page.getByRole('button', { name: 'Create the admin account' }).click()]);
    assert.ok(await page.getByRole('status').getByText('Formgate is set up: you are its admin.').isVisible());
    assert.ok(await page.getByRole('heading', { name: 'Acme Studio', level: 1 }).isVisible());
    const usage = page.getByRole('region', { name: 'Usage' });
    assert.ok(await usage.getByText('Submissions received').isVisible());
    assert.equal(await page.getByRole('region', { name: 'Plan and allowance' }).count(), 0);
    await checkPage(page, 'first-run-workspace-team');

    // the setup page is gone
    await page.goto(`${app.publicUrl}/setup`);
    assert.match(page.url(), /\/w\/[^/]+$/);
  });

  it('the admin page: health, mail with its test button, the mode, webhooks to private networks, accounts', async () => {
    await app.ctx.users.createUser('someone@example.com');
    await page.goto(`${app.publicUrl}/admin`);
    const health = page.getByRole('region', { name: 'Health' });
    assert.ok(await health.getByText(/^Formgate \d+\.\d+\.\d+/).isVisible());
    assert.ok(await health.getByText('No delivery has failed in the last 7 days.').isVisible());
    assert.ok(await page.getByRole('region', { name: 'Mail' }).getByRole('button', { name: 'Send a test email' }).isVisible());
    const usage = page.getByRole('region', { name: 'How this installation is used' });
    assert.equal(await usage.getByRole('radio', { name: 'For me and my team' }).isChecked(), true);

    const allow = page.getByRole('region', { name: 'Webhooks to private networks' });
    await allow.getByLabel('Allowed networks and hosts').fill('192.168.1.0/24\n10.0.0.0/99');
    await allow.getByRole('button', { name: 'Save' }).click();
    assert.ok(await page.getByText('The prefix length must be 0 to 32', { exact: false }).isVisible());
    await page.getByRole('region', { name: 'Webhooks to private networks' }).getByLabel('Allowed networks and hosts').fill('192.168.1.0/24, n8n.lan');
    await Promise.all([
      page.waitForURL(/#webhook-allow$/),
      page.getByRole('region', { name: 'Webhooks to private networks' }).getByRole('button', { name: 'Save' }).click(),
    ]);
    assert.ok(await page.getByRole('status').getByText('Webhooks to private networks saved.').isVisible());
    assert.deepEqual(app.ctx.instance.webhookAllow().hosts, ['n8n.lan']);
    await checkPage(page, 'first-run-admin');

    await page.getByRole('link', { name: 'Disable or delete someone@example.com' }).click();
    assert.ok(await page.getByRole('heading', { name: 'Account someone@example.com' }).isVisible());
    assert.ok(await page.getByText('It alone owns these workspaces').isVisible());
    await checkPage(page, 'admin-account');
    await Promise.all([page.waitForURL(/\/admin#accounts$/), page.getByRole('button', { name: 'Delete someone@example.com' }).click()]);
    assert.ok(await page.getByRole('status').getByText('someone@example.com was deleted').isVisible());
  });
});
