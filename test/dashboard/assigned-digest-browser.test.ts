import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium, newPage } from '../helpers/browser.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { signUp } from '../helpers/dashboard.js';

describe(`dashboard in Chromium: the setting of the digest of what is assigned to me (${TEST_DIALECT})`, { skip: needsChromium }, () => {
  let app: TestApp;
  let browser: Browser;
  let owner: Page;
  let userId: string;
  let workspaceId: string;

  before(async () => {
    app = await startApp();
    browser = await launchBrowser();
    owner = await newPage(browser);
    await signUp(owner, app, 'assigned-digest@example.com', 'owner password 1');
    userId = (await app.ctx.users.requireByEmail('assigned-digest@example.com')).id;
    workspaceId = new URL(owner.url()).pathname.split('/')[2]!;
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  it('is ticked from the keyboard, saved by its own button, and kept', async () => {
    await owner.goto(`${app.publicUrl}/w/${workspaceId}/settings`);
    const panel = owner.getByRole('region', { name: 'Assigned to you' });
    const box = panel.getByLabel('Daily email of the open submissions assigned to me');
    assert.equal(await box.isChecked(), false, 'off until chosen');
    await box.focus();
    await owner.keyboard.press('Space');
    await Promise.all([owner.waitForURL(/#assigned-digest$/), panel.getByRole('button', { name: 'Save daily email' }).press('Enter')]);
    await owner.getByRole('status').filter({ hasText: 'You will get a daily email of the open submissions assigned to you' }).waitFor();
    assert.equal(await owner.getByLabel('Daily email of the open submissions assigned to me').isChecked(), true);
    assert.equal(await owner.getByLabel('Send the digest to me').isChecked(), true, 'the spam digest’s own choice untouched');
    assert.deepEqual(await app.ctx.assignedDigests.settings(userId, workspaceId), { mine: true });
    await checkPage(owner, 'assigned-digest-settings');
  });
});
