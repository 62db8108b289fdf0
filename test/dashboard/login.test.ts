import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium, newPage } from '../helpers/browser.js';
import { logIn, logOut, signUp } from '../helpers/dashboard.js';

describe('dashboard in Chromium: sign up, log out, log in', { skip: needsChromium }, () => {
  let app: TestApp;
  let browser: Browser;

  before(async () => {
    app = await startApp();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  it('signs up the first account, which lands on its workspace as the instance admin', async () => {
    const page = await newPage(browser);
    await page.goto(`${app.publicUrl}/signup`);
    await assert.doesNotReject(page.getByText('it becomes the instance admin').waitFor());
    await checkPage(page, 'signup-first');

    // a too-short password is refused beside the field, and nothing is created
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('Must be at least 8 characters.').waitFor();
    assert.equal(await page.getByLabel('Password').getAttribute('aria-invalid'), 'true');
    assert.equal(await app.ctx.users.findByEmail('ada@example.com'), undefined);
    await checkPage(page, 'signup-error');

    await signUp(page, app, 'ada@example.com', 'analytical engine');
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'My workspace');
    await page.getByText('Submissions left').waitFor();
    assert.match((await page.locator('main').textContent()) ?? '', /250\s*of 250/, 'the FREE allowance, all of it left');
    await page.getByText('No forms yet').waitFor();
    // the account menu names the admin page
    await page.getByText('Account: ada@example.com').click();
    await page.getByRole('link', { name: 'Admin' }).waitFor();
    await checkPage(page, 'workspace-home');
    await page.context().close();
  });

  it('refuses sign-up after the first account unless invited (FORMGATE_SIGNUP=invite, the default)', async () => {
    const page = await newPage(browser);
    await page.goto(`${app.publicUrl}/signup`);
    await page.getByRole('heading', { level: 1, name: 'Sign-up is not open' }).waitFor();
    await page.getByText('ask a workspace owner to invite you').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Create account' }).count(), 0, 'no form to fill');
    // the login page offers no sign-up link either
    await page.goto(`${app.publicUrl}/login`);
    assert.equal(await page.getByRole('link', { name: 'Create an account' }).count(), 0);
    await checkPage(page, 'login-without-signup');
    await page.goto(`${app.publicUrl}/signup`);
    await checkPage(page, 'signup-by-invitation-only');
    await page.context().close();
  });

  it('logs out, refuses a wrong password with a message, and logs in again', async () => {
    const page = await newPage(browser);
    await logIn(page, app, 'ada@example.com', 'analytical engine');
    await logOut(page);
    await page.getByRole('status').filter({ hasText: 'You are logged out.' }).waitFor();
    await checkPage(page, 'login');

    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Password').fill('difference engine');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('alert').filter({ hasText: 'The email address or the password is not right.' }).waitFor();
    assert.equal(await page.getByLabel('Email').inputValue(), 'ada@example.com', 'the address is kept');
    await checkPage(page, 'login-refused');

    await logIn(page, app, 'ada@example.com', 'analytical engine');
    await page.context().close();
  });

  it('after a session ends, logging in again leads back to the page that was asked for', async () => {
    const page = await newPage(browser);
    await logIn(page, app, 'ada@example.com', 'analytical engine');
    const workspaceUrl = page.url();
    // the session ends on the server (expiry, or a log out everywhere)
    const user = await app.ctx.users.requireByEmail('ada@example.com');
    await app.ctx.sessions.endAll(user.id);
    await page.goto(workspaceUrl);
    await page.waitForURL(/\/login\?next=/);
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Password').fill('analytical engine');
    await Promise.all([page.waitForURL(workspaceUrl), page.getByRole('button', { name: 'Log in' }).click()]);
    await page.context().close();
  });

  it('works from the keyboard alone: skip link, menus and the log out button', async () => {
    const page = await newPage(browser);
    await logIn(page, app, 'ada@example.com', 'analytical engine');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
    // tab to the account menu, open it with Enter, then tab to "Log out" and press it
    for (let i = 0; i < 20; i++) {
      await page.keyboard.press('Tab');
      const text = await page.evaluate(() => document.activeElement?.textContent ?? '');
      if (text.includes('ada@example.com')) break;
    }
    await page.keyboard.press('Enter');
    for (let i = 0; i < 5; i++) {
      await page.keyboard.press('Tab');
      if ((await page.evaluate(() => document.activeElement?.textContent)) === 'Log out') break;
    }
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
    assert.notEqual(outline, 'none', 'focus is visible');
    await Promise.all([page.waitForURL(/\/login$/), page.keyboard.press('Enter')]);
    await page.context().close();
  });
});
