import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium, newPage } from '../helpers/browser.js';
import { signUp } from '../helpers/dashboard.js';
import { BOM, csvRecords } from '../helpers/export.js';
import { type PageSite, startPageSite } from '../helpers/page-site.js';

const PASSWORD = 'correct horse battery';

/** What the visitor types: a comma, quotes, a newline, non-ASCII text and a formula. */
const TYPED = {
  name: 'Zoë 北京',
  company: 'Acme, Inc.',
  message: 'He said "hi",\nthen left.',
  note: '=HYPERLINK("http://evil.example","click")',
};

function contactPage(action: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Contact</title></head><body><main>
<form action="${action}" method="post">
  <label>Name <input name="name"></label>
  <label>Company <input name="company"></label>
  <label>Message <textarea name="message"></textarea></label>
  <label>Note <input name="note"></label>
  <label><input type="checkbox" name="topics" value="sales"> Sales</label>
  <label><input type="checkbox" name="topics" value="support"> Support</label>
  <button type="submit">Send</button>
</form></main></body></html>`;
}

/** The inbox's export links, as the inbox page renders them (task C's page is not on this branch). */
function linksPage(publicUrl: string, formId: string, workspaceId: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Exports</title></head><body><main>
<a href="${publicUrl}/forms/${formId}/export?format=csv">Export CSV</a>
<a href="${publicUrl}/forms/${formId}/export?format=json">Export JSON</a>
<a href="${publicUrl}/w/${workspaceId}/export?format=csv&amp;from=2000-01-01">Export workspace CSV</a>
</main></body></html>`;
}

/** Clicks a link that downloads a file; returns the file's name and its text (a BOM kept). */
async function downloadVia(page: Page, link: string): Promise<{ name: string; text: string }> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: link, exact: true }).click()]);
  const file = await download.path();
  return { name: download.suggestedFilename(), text: new TextDecoder('utf-8', { ignoreBOM: true }).decode(fs.readFileSync(file)) };
}

describe('export in Chromium: what a visitor typed comes back in the CSV and JSON files', { skip: needsChromium }, () => {
  let app: TestApp;
  let browser: Browser;
  let site: PageSite;
  let siteUrl: string;
  let pages: Map<string, string>;

  before(async () => {
    app = await startApp();
    site = await startPageSite();
    ({ url: siteUrl, pages } = site);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await site?.close();
    await app?.close();
  });

  it('submits through a real form, then downloads Export CSV and Export JSON and finds every value as typed', async () => {
    const page = await newPage(browser);
    await signUp(page, app, 'owner@example.com', PASSWORD);
    const workspaceId = /\/w\/([^/]+)$/.exec(page.url())![1]!;
    const user = await app.ctx.users.requireByEmail('owner@example.com');
    const form = await app.ctx.forms.createForm(user.id, workspaceId, { name: 'Kontakt Zoë' });

    pages.set('/contact', contactPage(`${app.submitUrl}/${form.id}`));
    await page.goto(`${siteUrl}/contact`);
    for (const [label, value] of [
      ['Name', TYPED.name],
      ['Company', TYPED.company],
      ['Message', TYPED.message],
      ['Note', TYPED.note],
    ] as const) {
      await page.getByLabel(label).fill(value);
    }
    await page.getByLabel('Sales').check();
    await page.getByLabel('Support').check();
    await Promise.all([page.waitForURL(new RegExp(`/${form.id}/thanks`)), page.getByRole('button', { name: 'Send' }).click()]);

    // a browser sends a textarea's line breaks as CRLF: that is what was submitted
    const submitted = { ...TYPED, message: TYPED.message.replace(/\n/g, '\r\n'), topics: ['sales', 'support'] };
    const [stored] = (await app.ctx.submissions.listSubmissions(user.id, { formId: form.id }, { limit: 10, after: null })).rows;
    assert.ok(stored, 'the submission was stored and accepted');

    pages.set('/exports', linksPage(app.publicUrl, form.id, workspaceId));
    await page.goto(`${siteUrl}/exports`);
    const day = new Date().toISOString().slice(0, 10);

    const csv = await downloadVia(page, 'Export CSV');
    // RFC 6266: filename* carries the name as written, in UTF-8
    assert.equal(csv.name, `kontakt-zoë-submissions-${day}.csv`);
    assert.ok(csv.text.startsWith(BOM));
    const [header, row, ...rest] = csvRecords(csv.text);
    assert.equal(rest.length, 0);
    assert.deepEqual(header, ['id', 'createdAt', 'formId', 'name', 'company', 'message', 'note', 'topics', 'status', 'assignee', 'labels']);
    assert.deepEqual(row, [
      stored.id,
      new Date(stored.createdAt).toISOString(),
      form.id,
      submitted.name,
      submitted.company,
      submitted.message,
      `'${submitted.note}`,
      'sales, support',
      'open',
      '',
      '',
    ]);

    const json = await downloadVia(page, 'Export JSON');
    assert.equal(json.name, `kontakt-zoë-submissions-${day}.json`);
    assert.deepEqual(JSON.parse(json.text), [
      {
        id: stored.id,
        formId: form.id,
        data: submitted,
        createdAt: new Date(stored.createdAt).toISOString(),
        triage: { status: 'open', doneAt: null, assignee: null, labels: [] },
      },
    ]);

    const workspace = await downloadVia(page, 'Export workspace CSV');
    assert.equal(workspace.name, `my-workspace-submissions-${day}.csv`);
    assert.deepEqual(csvRecords(workspace.text)[1], row);
  });

  it('shows a bad date of an export link as an error page naming it', async () => {
    const page = await newPage(browser);
    await page.goto(`${app.publicUrl}/login`);
    await page.getByLabel('Email').fill('owner@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await Promise.all([page.waitForURL(/\/w\/[^/]+$/), page.getByRole('button', { name: 'Log in' }).click()]);
    const workspaceId = /\/w\/([^/]+)$/.exec(page.url())![1]!;
    const answer = await page.goto(`${app.publicUrl}/w/${workspaceId}/export?format=csv&from=2026-02-30`);
    assert.equal(answer?.status(), 400);
    await assert.doesNotReject(page.getByText('From: Must be a date written YYYY-MM-DD, such as 2026-11-24.').waitFor());
    await checkPage(page, 'export-error');
  });
});
