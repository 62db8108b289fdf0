import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium, newPage } from '../helpers/browser.js';

// Chromium resolves `rebind.test` to this machine, as a rebinding attacker's DNS would after its page loaded.
const REBINDING_NAME = 'rebind.test';

describe('dashboard in Chromium: a page under a rebinding name', { skip: needsChromium }, () => {
  let app: TestApp;
  let browser: Browser;

  before(async () => {
    app = await startApp();
    browser = await launchBrowser([`--host-resolver-rules=MAP ${REBINDING_NAME} 127.0.0.1`]);
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  it('shows a 421 page naming the right address instead of the sign-up form, and the right address works', async () => {
    const page = await newPage(browser);
    const rebound = new URL(app.publicUrl);
    rebound.hostname = REBINDING_NAME;
    const answer = await page.goto(`${rebound.origin}/signup`);
    assert.equal(answer?.status(), 421);
    await page.getByRole('heading', { name: 'Wrong address' }).waitFor();
    await page.getByText(`open it at ${app.publicUrl}.`).waitFor();
    assert.equal(await page.getByLabel('Password').count(), 0, 'no sign-up form');
    assert.equal(
      await page.getByRole('link', { name: 'Go to the dashboard' }).getAttribute('href'),
      `${app.publicUrl}/`,
      'the link leads to the right address',
    );
    await checkPage(page, 'misdirected-request');

    await page.goto(`${app.publicUrl}/signup`);
    await page.getByRole('button', { name: 'Create account' }).waitFor();
    await page.context().close();
  });
});
