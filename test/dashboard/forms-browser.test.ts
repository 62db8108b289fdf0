import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium } from '../helpers/browser.js';
import { signUp } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';

const PASSWORD = 'correct horse battery';

/** A visitor's site on loopback: one page holding whatever HTML it is given. */
async function serveSite(body: () => string): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Contact us</title></head><body><h1>Contact us</h1>${body()}</body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe(`dashboard in Chromium: forms, charts, Setup and test submissions (${TEST_DIALECT})`, { skip: needsChromium }, () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;

  before(async () => {
    app = await startApp();
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, permissions: ['clipboard-read', 'clipboard-write'] });
    page = await context.newPage();
    await signUp(page, app, 'owner@example.com', PASSWORD);
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  it('creates a form, copies its HTML snippet into a page on loopback, submits it from the browser, and sees it counted in the forms list', async () => {
    const workspaceUrl = page.url();
    await page.getByText('No forms yet.').waitFor();
    await checkPage(page, 'forms-empty');

    await page.getByRole('link', { name: 'New form' }).click();
    await page.getByRole('heading', { name: 'New form' }).waitFor();
    await page.getByRole('button', { name: 'Create form' }).click();
    await page.getByText('Must be 1 to 128 characters.').waitFor();
    assert.equal(await page.getByLabel('Name').getAttribute('aria-invalid'), 'true');
    await checkPage(page, 'new-form-errors');

    await page.getByLabel('Name').fill('Contact');
    await Promise.all([page.waitForURL(/\/forms\/[a-z2-7]{20}\/setup$/), page.getByRole('button', { name: 'Create form' }).click()]);
    const formId = /\/forms\/([a-z2-7]{20})\/setup$/.exec(page.url())![1]!;
    assert.ok(await page.getByRole('status').filter({ hasText: 'Form created: copy its snippet into your page' }).isVisible());
    assert.ok(await page.getByRole('heading', { name: 'Contact', level: 1 }).isVisible());
    const address = `${app.submitUrl}/${formId}`;
    assert.equal((await page.locator('#submit-address').textContent())?.trim(), address);
    await checkPage(page, 'form-setup');

    await page.getByRole('button', { name: 'Copy HTML form', exact: true }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    const snippet = await page.evaluate(() => navigator.clipboard.readText());
    assert.ok(snippet.startsWith(`<form id="formgate-${formId.slice(-8)}" action="${address}" method="post">`), snippet);

    const site = await serveSite(() => snippet);
    try {
      const visitor = await browser.newPage();
      await visitor.goto(site.url);
      await visitor.getByLabel('Name').fill('Ada Lovelace');
      await visitor.getByLabel('Email').fill('ada@example.net');
      await visitor.getByLabel('Message').fill('Could you send me the price list?');
      await Promise.all([visitor.waitForURL(new RegExp(`^${address}/thanks`)), visitor.getByRole('button', { name: 'Send' }).click()]);
      await visitor.close();
    } finally {
      await site.close();
    }
    const [stored] = await app.ctx.database.db.selectFrom('submissions').select(['data', 'status']).where('formId', '=', formId).execute();
    assert.equal(stored!.status, 'accepted');
    const data = typeof stored!.data === 'string' ? JSON.parse(stored!.data) : stored!.data;
    assert.deepEqual(data, { name: 'Ada Lovelace', email: 'ada@example.net', message: 'Could you send me the price list?' }, 'the trap field is not kept');

    await page.goto(workspaceUrl);
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'Contact' }) });
    assert.deepEqual((await row.getByRole('cell').allTextContents()).slice(1, 4), ['1 unread', '1', '0'], 'new, this month and spam caught');
    assert.ok(await row.getByRole('img', { name: 'Last 30 days: 1 accepted, 0 spam' }).isVisible());
    // the chart is folded below the forms until opened
    await page.getByText('Submissions, last 30 days', { exact: true }).click();
    const chart = page.getByRole('img', { name: 'Submissions per day, last 30 days: all forms of My workspace' });
    const described = await chart.getAttribute('aria-describedby');
    assert.match((await page.locator(`#${described}`).textContent()) ?? '', /^1 accepted and 0 spam in the last 30 days; busiest day \d+ \w{3} with 1\.$/);
    await page.getByText('Show the numbers').click();
    assert.ok(await page.getByRole('table', { name: 'Submissions per day: all forms of My workspace' }).isVisible());
    await checkPage(page, 'forms-list');
  });

  it('sends a test submission from Setup and shows where it went; a CAPTCHA one is off and says why', async () => {
    const owner = await app.ctx.users.requireByEmail('owner@example.com');
    const [home] = (await app.ctx.workspaces.listForUser(owner.id, { limit: 1, after: null })).rows;
    const form = await app.ctx.forms.createForm(owner.id, home!.id, {
      name: 'Newsletter',
      notificationEmails: ['team@example.com'],
      webhookUrl: 'https://hooks.example.com/formgate',
    });
    // a busier chart for the screenshots: spam and accepted on a few days
    const today = Math.floor(Date.now() / 86_400_000);
    await app.ctx.database.db
      .insertInto('dailyCounts')
      .values(
        [3, 7, 12, 20, 26].map((back, i) => ({
          formId: form.id,
          workspaceId: home!.id,
          day: today - back,
          accepted: 4 + i * 3,
          spam: i % 2 === 0 ? 2 + i : 0,
          lastAt: (today - back) * 86_400_000 + 3_600_000,
        })),
      )
      .execute();
    await page.goto(`${app.publicUrl}/forms/${form.id}/setup`);
    await Promise.all([page.waitForURL(/\/test-submission\/\w+$/), page.getByRole('button', { name: 'Send a test submission' }).click()]);
    assert.ok(await page.getByRole('status').filter({ hasText: 'Test submission sent' }).isVisible());
    assert.ok(await page.getByRole('link', { name: 'Open the submission' }).isVisible());
    const rows = page.getByRole('table').getByRole('row');
    assert.equal(await rows.count(), 3, 'a header and two deliveries');
    assert.ok(await rows.filter({ hasText: 'team@example.com' }).filter({ hasText: 'Notification email' }).isVisible());
    assert.ok(await rows.filter({ hasText: 'https://hooks.example.com/formgate' }).filter({ hasText: 'Webhook' }).isVisible());
    await checkPage(page, 'test-submission-result');

    await page.goto(`${app.publicUrl}/w/${home!.id}`);
    await checkPage(page, 'forms-list-busy');

    // a captcha the test cannot solve: the page says so, with the submit surface's detail
    await app.ctx.forms.setSecret(form.id, 'GOOGLE_RECAPTCHA_V2', 'secret-key');
    await app.ctx.forms.updateForm(owner.id, form.id, { spamProtection: 'GOOGLE_RECAPTCHA_V2' });
    await page.goto(`${app.publicUrl}/forms/${form.id}/setup`);
    assert.ok(await page.getByRole('heading', { name: 'CAPTCHA: Google reCAPTCHA v2' }).isVisible());
    await checkPage(page, 'form-setup-captcha');
    // the test cannot pass: its button is off, and says why (a test posted anyway is refused: test/dashboard/forms.test.ts)
    assert.equal(await page.getByRole('button', { name: 'Send a test submission' }).isDisabled(), true);
    assert.ok(await page.getByText('which a test cannot solve').isVisible());
  });
});
