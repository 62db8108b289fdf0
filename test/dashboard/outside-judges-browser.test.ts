import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium } from '../helpers/browser.js';
import { signedUpOwner } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { HAM, type SpamdStandIn, startSpamdStandIn } from '../helpers/spamd-stand-in.js';

describe(`dashboard in Chromium: a form's outside spam judges (${TEST_DIALECT})`, { skip: needsChromium }, () => {
  let spamd: SpamdStandIn;
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let userId: string;
  let workspaceId: string;

  before(async () => {
    spamd = await startSpamdStandIn(HAM);
    app = await startApp({ spamdUrl: spamd.url });
    browser = await launchBrowser();
    ({ page, userId, workspaceId } = await signedUpOwner(browser, app, 'judges@example.com', 'correct horse battery'));
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await spamd?.close();
  });

  it('turns judges on with the keyboard, saves them, and stores the Akismet key write-only', async () => {
    const formId = (await app.ctx.forms.createForm(userId, workspaceId, { name: 'Contact' })).id;
    await page.goto(`${app.publicUrl}/forms/${formId}/settings`);
    const group = page.getByRole('group', { name: 'Outside judges' });
    for (const name of ['Ask SpamAssassin', 'Flag disposable addresses', 'Same message from many addresses'])
      assert.equal(await group.getByRole('checkbox', { name }).isChecked(), false, `${name} is off by default`);
    await checkPage(page, 'form-settings-outside-judges');

    await group.getByRole('checkbox', { name: 'Ask SpamAssassin' }).focus();
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Space');
    await Promise.all([page.waitForURL(/\/settings$/), page.getByLabel('Custom honeypot field').press('Enter')]);
    const form = await app.ctx.forms.getForm(userId, formId);
    assert.deepEqual([form.spamAssassin, form.flagDisposableAddresses, form.flagSameMessage], [1, 1, 0]);
    assert.equal(await group.getByRole('checkbox', { name: 'Ask SpamAssassin' }).isChecked(), true);

    await page.getByText(/Secret keys of the CAPTCHA providers, Slack and Akismet|Other secret keys/).click();
    await page.getByLabel('Akismet API key').fill('abc123def456');
    await Promise.all([page.waitForURL(/#secret-keys$/), page.getByLabel('Akismet API key').press('Enter')]);
    assert.match((await page.locator('#akismet-state').textContent()) ?? '', /Akismet: on\./);
    assert.equal((await page.content()).includes('abc123def456'), false, 'the key never comes back');
    await checkPage(page, 'form-settings-akismet-set');
  });
});
