import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium, newPage } from '../helpers/browser.js';
import { logIn } from '../helpers/dashboard.js';
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js';

const EMAIL = 'person@example.com';

describe('dashboard in Chromium: password reset and the account page', { skip: needsChromium }, () => {
  let app: TestApp;
  let sink: SmtpSink;
  let browser: Browser;
  let userId: string;

  before(async () => {
    sink = await startSmtpSink();
    app = await startApp({ smtpUrl: sink.url }, { delivery: true });
    ({
      user: { id: userId },
    } = await app.ctx.users.createUser(EMAIL, 'forgotten password'));
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await sink?.close();
  });

  it('resets a forgotten password through the emailed link, then logs in with the new one', async () => {
    const page = await newPage(browser);
    await page.goto(`${app.publicUrl}/login`);
    await Promise.all([page.waitForURL(/\/forgot-password$/), page.getByRole('link', { name: 'Forgot your password?' }).click()]);
    await checkPage(page, 'forgot-password');
    await page.getByLabel('Email').fill(EMAIL);
    await Promise.all([page.waitForURL(/\/forgot-password\/sent$/), page.getByRole('button', { name: 'Send reset link' }).click()]);
    await page.getByText('If an account has this address, we sent a link to it.').waitFor();
    await checkPage(page, 'reset-link-sent');

    const [mail] = await sink.waitFor(1);
    const link = /https?:\/\/\S+\/reset-password\/[A-Za-z0-9_-]{43}/.exec(mail!.parsed.text ?? '')?.[0];
    assert.ok(link, 'the email holds the link');
    await page.goto(link);
    assert.equal(await page.getByLabel('Email').inputValue(), EMAIL);
    await checkPage(page, 'reset-password');
    await page.getByLabel('New password').fill('short');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.getByText('Must be at least 8 characters.').waitFor();
    await page.getByLabel('New password').fill('remembered password');
    await Promise.all([page.waitForURL(/\/login$/), page.getByRole('button', { name: 'Set new password' }).click()]);
    await page.getByText('Your password has been changed; log in with it.').waitFor();

    await logIn(page, app, EMAIL, 'remembered password');
    await page.goto(link);
    await page.getByText('This link has expired or was already used.').waitFor();
    await checkPage(page, 'reset-link-expired');
    await page.getByRole('link', { name: 'Ask for a new link' }).click();
    await page.waitForURL(/\/forgot-password$/);
    await page.context().close();
  });

  it('changes the password on the account page, logging out the other browsers, then logs out everywhere', async () => {
    const page = await newPage(browser);
    const other = await newPage(browser);
    await app.ctx.sessions.endAll(userId); // the first test's login
    await logIn(page, app, EMAIL, 'remembered password');
    await logIn(other, app, EMAIL, 'remembered password');

    // the account menu: its summary names the account (a visually hidden "Account: " precedes the address)
    await page.getByText(EMAIL).click();
    await Promise.all([page.waitForURL(/\/account$/), page.getByRole('link', { name: 'Account settings' }).click()]);
    await page.getByText('You are logged in on this browser and 1 other.').waitFor();
    await checkPage(page, 'account');

    await page.getByLabel('Current password').fill('not my password');
    await page.getByLabel('New password').fill('a third password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Is not the account’s password.').waitFor();
    await checkPage(page, 'account-refused');

    await page.getByLabel('Current password').fill('remembered password');
    await page.getByLabel('New password').fill('a third password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('status').getByText('Password changed').waitFor();
    await page.getByText('You are logged in on this browser only.').waitFor();
    await other.reload();
    await other.waitForURL(/\/login\?next=/);

    await Promise.all([page.waitForURL(/\/login$/), page.getByRole('button', { name: 'Log out everywhere' }).click()]);
    await page.getByText('You are logged out everywhere.').waitFor();
    await page.goto(`${app.publicUrl}/account`);
    await page.waitForURL(/\/login\?next=%2Faccount$/);
    await logIn(page, app, EMAIL, 'a third password');
    await page.context().close();
    await other.context().close();
  });
});
