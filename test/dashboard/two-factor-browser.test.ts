import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { awayFromStepEdge, totpCode } from '../helpers/totp.js';
import { checkPage, launchBrowser, needsChromium } from '../helpers/browser.js';
import { logOut, signedUpOwner } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';

const EMAIL = 'two-factor@example.com';
const PASSWORD = 'correct horse battery';

describe(`dashboard in Chromium: two-factor sign-in and sessions (${TEST_DIALECT})`, { skip: needsChromium }, () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let workspaceId: string;
  let secret: string;

  before(async () => {
    app = await startApp();
    browser = await launchBrowser();
    ({ page, workspaceId } = await signedUpOwner(browser, app, EMAIL, PASSWORD));
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  it('sets an authenticator app up from the account page, from the keyboard', async () => {
    await page.goto(`${app.publicUrl}/account`);
    await page.getByRole('region', { name: 'Signing in' }).getByRole('link', { name: 'Two-factor sign-in' }).click();
    await page.getByRole('heading', { name: 'Two-factor sign-in', level: 1 }).waitFor();
    await checkPage(page, 'two-factor-settings-off');
    await page.getByRole('link', { name: 'Set up an authenticator app' }).click();
    assert.ok(await page.getByRole('img', { name: 'QR code holding your new secret' }).isVisible());
    secret = (await page.getByRole('region', { name: 'Your new secret' }).innerText()).trim();
    assert.match(secret, /^[A-Z2-7 ]{32,}$/);
    await checkPage(page, 'two-factor-app-setup');
    await awayFromStepEdge();
    await page.getByLabel('Code from your authenticator app').fill(totpCode(secret, -1));
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
    const codes = (await page.getByRole('region', { name: 'Your recovery codes' }).innerText()).trim().split('\n');
    assert.equal(codes.length, 10);
    await checkPage(page, 'two-factor-recovery-codes');
    await page.getByRole('link', { name: 'I have saved them' }).click();
    assert.ok(await page.getByText(/On\. After your password, Formgate asks for the code your app shows/).isVisible());
    await checkPage(page, 'two-factor-settings-on');
  });

  it('asks the code after the password, and remembers nothing unless asked', async () => {
    await logOut(page);
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await Promise.all([page.waitForURL(/\/login\/two-factor$/), page.getByRole('button', { name: 'Log in' }).click()]);
    await checkPage(page, 'two-factor-sign-in');
    await page.getByLabel('Code from your authenticator app').fill('000000');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByText('That code is not right, or it was used already.').first().waitFor();
    await awayFromStepEdge();
    await page.getByLabel('Code from your authenticator app').fill(totpCode(secret));
    await Promise.all([page.waitForURL(/\/w\/[^/]+$/), page.getByRole('button', { name: 'Sign in', exact: true }).click()]);
  });

  it('lists the sessions, this browser marked, and the workspace’s requirement for owners', async () => {
    const other = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1',
    });
    const phone = await other.newPage();
    await phone.goto(`${app.publicUrl}/login`);
    await phone.getByLabel('Email').fill(EMAIL);
    await phone.getByLabel('Password').fill(PASSWORD);
    await Promise.all([phone.waitForURL(/\/login\/two-factor$/), phone.getByRole('button', { name: 'Log in' }).click()]);
    await phone.getByLabel('Code from your authenticator app').fill(totpCode(secret, 1));
    await Promise.all([phone.waitForURL(/\/w\/[^/]+$/), phone.getByRole('button', { name: 'Sign in', exact: true }).click()]);

    await page.goto(`${app.publicUrl}/account/sessions`);
    const table = page.getByRole('table', { name: 'Signed-in browsers' });
    assert.ok(await table.getByRole('rowheader', { name: /Safari on iOS/ }).isVisible());
    assert.ok(await table.getByText('This browser', { exact: true }).isVisible());
    await checkPage(page, 'account-sessions');
    await table.getByRole('button', { name: /Sign out Safari on iOS/ }).click();
    await page.getByRole('status').filter({ hasText: 'That browser is signed out.' }).waitFor();
    await phone.goto(`${app.publicUrl}/account`);
    assert.match(phone.url(), /\/login/, 'the phone is signed out');
    await other.close();

    await page.goto(`${app.publicUrl}/w/${workspaceId}/settings`);
    const panel = page.getByRole('region', { name: 'Two-factor sign-in' });
    await panel.getByRole('checkbox', { name: 'Require a second factor of every member' }).check();
    await panel.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Every member must now have a second factor.' }).waitFor();
    assert.ok(await panel.getByText('Every member has a second factor').isVisible());
  });
});
