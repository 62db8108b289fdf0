import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { htmlSnippet, snippetElementId } from '../../src/dashboard/snippets.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { launchBrowser, needsChromium, newPage } from '../helpers/browser.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { type PageSite, startPageSite } from '../helpers/page-site.js';
import { storedRows } from '../helpers/submit.js';

// Past this, the wait is a hang, not a slow machine: a solve takes about a second.
const SOLVED_WITHIN_MS = 30_000;

describe('ALTCHA in headless Chromium: the widget served by Formgate on a plain HTML page', { skip: needsChromium }, () => {
  let app: TestApp;
  let account: Account;
  let browser: Browser;
  let site: PageSite;

  before(async () => {
    app = await startApp();
    account = await createAccount(app);
    site = await startPageSite();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await site?.close();
    await app?.close();
  });

  it("solves the challenge in the visitor's browser, posts the form, and the submission is stored without the answer", async (t) => {
    // the form lists the site: the challenge and the post are both held to it
    const form = await createForm(app, account, { allowedOrigins: [site.url] });
    const patched = await app.api('PATCH', `/forms/${form.id}`, { token: account.token, body: { spamProtection: 'ALTCHA' } });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    // the page is the dashboard's own snippet, as an owner pastes it
    const snippet = htmlSnippet(`${app.submitUrl}/${form.id}`, { elementId: snippetElementId(form.id), honeypot: null, provider: 'ALTCHA', files: false });
    site.pages.set('/contact', `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Contact</title></head><body>${snippet}</body></html>`);

    const page = await newPage(browser);
    try {
      await page.goto(`${site.url}/contact`);
      await page.getByLabel('Name').fill('Hedy Lamarr');
      await page.getByLabel('Email').fill('hedy@example.com');
      await page.getByLabel('Message').fill('Frequency hopping, about.');
      const robot = page.getByRole('checkbox', { name: "I'm not a robot" });
      assert.equal(await robot.isChecked(), false);
      // as a visitor does: a click on the words (the drawn tick lies over the box itself)
      await page.getByText("I'm not a robot").click();
      await page.getByText('Verified').waitFor({ timeout: SOLVED_WITHIN_MS });
      const answer = await page.locator('input[name="altcha"]').inputValue();
      const { solution } = JSON.parse(Buffer.from(answer, 'base64').toString());
      // what docs/captcha.md's measurement of the cost comes from
      t.diagnostic(`solved in Chromium: counter ${solution.counter} in ${solution.time} ms`);

      await Promise.all([page.waitForURL(new RegExp(`/${form.id}/thanks`)), page.getByRole('button', { name: 'Send' }).click()]);
      assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Thank you!');
      const [stored, ...more] = await storedRows(app, form.id);
      assert.equal(more.length, 0);
      assert.deepEqual(stored!.data, { name: 'Hedy Lamarr', email: 'hedy@example.com', message: 'Frequency hopping, about.' });
    } finally {
      await page.context().close();
    }
  });
});
