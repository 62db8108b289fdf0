import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium } from '../helpers/browser.js';
import { DashboardClient, logIn, logOut } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';

const EMAIL = 'owner@example.com';
const PASSWORD = 'correct horse battery';

describe(`dashboard in Chromium: failures from elsewhere do not lock the owner out (${TEST_DIALECT})`, { skip: needsChromium }, () => {
  let app: TestApp;
  let browser: Browser;

  before(async () => {
    app = await startApp({ trustProxy: 'true', rateLimitLoginAccount: '3/15m' });
    browser = await launchBrowser();
    await app.ctx.users.createUser(EMAIL, PASSWORD);
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  it('a browser that logged in before gets in; a new one is told what to do', async () => {
    const known = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await logIn(known, app, EMAIL, PASSWORD);
    await logOut(known);
    // an attacker guesses from many addresses until the account refuses unknown browsers
    for (let i = 0; i < 5; i++) {
      const attacker = new DashboardClient(app);
      const from = { 'x-forwarded-for': `203.0.113.${i + 1}` };
      await attacker.get('/login', from);
      await attacker.post('/login', { email: EMAIL, password: `guess ${i}` }, from);
    }
    const fresh = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await fresh.goto(`${app.publicUrl}/login`);
    await fresh.getByLabel('Email').fill(EMAIL);
    await fresh.getByLabel('Password').fill(PASSWORD);
    await fresh.getByRole('button', { name: 'Log in' }).click();
    const alert = fresh.getByRole('alert');
    await alert.waitFor();
    assert.match((await alert.textContent()) ?? '', /from browsers it has not logged in from; .* or reset your password\./);
    assert.ok(await fresh.getByRole('link', { name: 'Forgot your password?' }).isVisible(), 'the way to a reset link is on the page');
    await checkPage(fresh, 'login-unknown-browser');
    // the owner's own browser, with the right password, gets in
    await logIn(known, app, EMAIL, PASSWORD);
  });
});
