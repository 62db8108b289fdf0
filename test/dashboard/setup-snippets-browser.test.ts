import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { fromJson } from '../../src/db/database.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium, SCREENSHOT_DIR } from '../helpers/browser.js';
import { signUp } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { type PageSite, startPageSite } from '../helpers/page-site.js';

// A site's page as people build them: a search form in the header, before the contact form.
const HEADER = '<header><form role="search" action="/search"><input name="q" aria-label="Search the site"><button>Search</button></form></header>';

describe(`dashboard in Chromium: a new form emails its creator, and Setup's snippets bind the right form (${TEST_DIALECT})`, { skip: needsChromium }, () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let site: PageSite;
  let workspaceUrl: string;

  before(async () => {
    app = await startApp();
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    site = await startPageSite();
    await signUp(page, app, 'owner@example.com', 'correct horse battery');
    workspaceUrl = page.url();
  });
  after(async () => {
    await browser?.close();
    await site?.close();
    await app?.close();
  });

  async function createForm(name: string, notifyMe: boolean): Promise<string> {
    await page.goto(`${workspaceUrl}/forms/new`);
    await page.getByLabel('Name').fill(name);
    const box = page.getByLabel('Email each submission to me');
    assert.equal(await box.isChecked(), true, 'checked on a fresh page');
    if (!notifyMe) await box.uncheck();
    await Promise.all([page.waitForURL(/\/forms\/[a-z2-7]{20}\/setup$/), page.getByRole('button', { name: 'Create form' }).click()]);
    return /\/forms\/([a-z2-7]{20})\/setup$/.exec(page.url())![1]!;
  }

  async function codeOf(label: string): Promise<string> {
    return (await page.getByRole('region', { name: label }).textContent())!.trim();
  }

  it('pre-fills the creator in the recipients and says on Setup where emails go, with the way to change it', async () => {
    await page.goto(`${workspaceUrl}/forms/new`);
    await checkPage(page, 'new-form');
    const formId = await createForm('Contact', true);
    const form = await app.ctx.database.db.selectFrom('forms').select('notificationEmails').where('id', '=', formId).executeTakeFirstOrThrow();
    assert.deepEqual(fromJson(form.notificationEmails), ['owner@example.com']);
    const where = page.getByRole('region', { name: 'Where submissions go' });
    assert.match((await where.textContent()) ?? '', /Emails go to: owner@example\.com\./);
    await where.getByRole('link', { name: 'Change where emails go' }).click();
    await page.waitForURL(new RegExp(`/forms/${formId}/settings#notifications$`));
    assert.equal(
      await page
        .getByRole('textbox', { name: /Address/ })
        .first()
        .inputValue(),
      'owner@example.com',
    );

    const quiet = await createForm('Quiet', false);
    const row = await app.ctx.database.db.selectFrom('forms').select('notificationEmails').where('id', '=', quiet).executeTakeFirstOrThrow();
    assert.deepEqual(fromJson(row.notificationEmails), []);
    assert.match((await page.getByRole('region', { name: 'Where submissions go' }).textContent()) ?? '', /Emails go to: no one\./);
    await page.getByRole('link', { name: 'Add a notification address' }).waitFor();
  });

  it('the fetch snippet sends its own form, with a file, on a page whose header has a search form', async () => {
    const formId = await createForm('Applications', true);
    await checkPage(page, 'form-setup-files');
    const html = await codeOf('HTML form with a file input');
    const script = await codeOf('Fetch example');
    assert.match(html, new RegExp(`^<form id="formgate-${formId.slice(-8)}" action="[^"]+" method="post" enctype="multipart/form-data">`));
    assert.match(script, new RegExp(`document.getElementById\\('formgate-${formId.slice(-8)}'\\)`));
    site.pages.set(
      '/apply',
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Apply</title></head><body>${HEADER}<main>${html}\n${script}</main></body></html>`,
    );

    const visitor = await browser.newPage();
    try {
      await visitor.goto(`${site.url}/apply`);
      await visitor.getByLabel('Name').fill('Ada Lovelace');
      await visitor.getByLabel('Email').fill('ada@example.net');
      await visitor.getByLabel('Message').fill('My application');
      await visitor.getByLabel('Attachment').setInputFiles({ name: 'cv.txt', mimeType: 'text/plain', buffer: Buffer.from('Analytical Engine') });
      await visitor.getByRole('button', { name: 'Send' }).click();
      await visitor.getByText('Thank you: your message was sent.').waitFor();
      // the search form is still there, untouched: the script bound the contact form only
      assert.equal(await visitor.getByRole('search').count(), 1);
      assert.equal(visitor.url(), `${site.url}/apply`);
    } finally {
      await visitor.close();
    }
    const stored = await app.ctx.database.db.selectFrom('submissions').select(['id', 'data']).where('formId', '=', formId).execute();
    assert.equal(stored.length, 1);
    assert.deepEqual(Object.keys(fromJson<Record<string, unknown>>(stored[0]!.data)).slice(0, 3), ['name', 'email', 'message']);
    const files = await app.ctx.database.db
      .selectFrom('submissionFiles')
      .select(['name', 'size', 'storageKey'])
      .where('submissionId', '=', stored[0]!.id)
      .execute();
    assert.deepEqual(
      files.map((f) => [f.name, Number(f.size), f.storageKey !== null]),
      [['cv.txt', 17, true]],
    );
  });

  it('two forms’ HTML snippets on one page: every id is unique and each label names its own form’s field (issue 39, item 20)', async () => {
    const first = await createForm('Newsletter', false);
    // the panel "HTML form" holds the code block of the same name: the block is the last of the two
    const htmlForm = async () => ((await page.getByRole('region', { name: 'HTML form', exact: true }).last().textContent()) ?? '').trim();
    const firstHtml = await htmlForm();
    const second = await createForm('Quote', false);
    const secondHtml = await htmlForm();
    assert.match(secondHtml, new RegExp(`<label for="formgate-${second.slice(-8)}-email">Email</label>`));
    site.pages.set(
      '/two-forms',
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Two forms</title></head><body><main>${firstHtml}\n${secondHtml}</main></body></html>`,
    );
    const visitor = await browser.newPage();
    try {
      await visitor.goto(`${site.url}/two-forms`);
      const ids = await visitor.evaluate(() => [...document.querySelectorAll('[id]')].map((element) => element.id));
      assert.deepEqual(ids, [...new Set(ids)], 'no id twice');
      for (const label of ['Name', 'Email', 'Message'])
        assert.equal(await visitor.getByLabel(label, { exact: true }).count(), 2, `two ${label} fields, one per label`);
      await visitor.getByLabel('Name', { exact: true }).nth(1).fill('Grace Hopper');
      await visitor.getByLabel('Email', { exact: true }).nth(1).fill('grace@example.net');
      await visitor.getByLabel('Message', { exact: true }).nth(1).fill('A quote, please');
      await visitor.screenshot({ path: path.join(SCREENSHOT_DIR, 'two-forms-snippets.png'), fullPage: true });
      await Promise.all([visitor.waitForURL((url) => !url.href.startsWith(site.url)), visitor.getByRole('button', { name: 'Send' }).nth(1).click()]);
    } finally {
      await visitor.close();
    }
    const stored = await app.ctx.database.db.selectFrom('submissions').select(['formId', 'data']).where('formId', 'in', [first, second]).execute();
    assert.deepEqual(
      stored.map((row) => [row.formId, fromJson(row.data)]),
      [[second, { name: 'Grace Hopper', email: 'grace@example.net', message: 'A quote, please' }]],
    );
  });

  it('without uploads, Setup says files are dropped and how to turn them on', async () => {
    const formId = await createForm('No files', false);
    await app.ctx.database.db.updateTable('forms').set({ uploadsEnabled: 0 }).where('id', '=', formId).execute();
    await page.reload();
    const panel = page.getByRole('region', { name: 'Taking files' });
    assert.match((await panel.textContent()) ?? '', /drops the files a page sends and keeps the rest/);
    assert.equal(await page.getByRole('region', { name: 'HTML form with a file input' }).count(), 0);
  });
});
