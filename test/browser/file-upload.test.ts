import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { listed } from '../helpers/submit.js';
import { type PageSite, startPageSite } from '../helpers/page-site.js';

const CHROMIUM = '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];

/** A job application page: text fields, a file input and a `multiple` file input, posted as multipart. */
function applicationPage(action: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Apply</title></head><body>
<form action="${action}" method="post" enctype="multipart/form-data">
  <label>Name <input name="name" id="name"></label>
  <label>Message <textarea name="message" id="message"></textarea></label>
  <label>CV <input type="file" name="cv" id="cv"></label>
  <label>Samples <input type="file" name="samples" id="samples" multiple></label>
  <label>Portrait <input type="file" name="portrait" id="portrait"></label>
  <button type="submit" id="send">Send</button>
</form></body></html>`;
}

describe('file uploads from a real browser (headless Chromium)', {
  skip: !fs.existsSync(CHROMIUM) && `SKIPPED: ${CHROMIUM} is not installed (.ci/run installs it)`,
}, () => {
  let app: TestApp;
  let account: Account;
  let browser: Browser;
  let site: PageSite;
  let siteUrl: string;
  let pages: Map<string, string>;

  before(async () => {
    app = await startApp();
    account = await createAccount(app);
    site = await startPageSite();
    ({ url: siteUrl, pages } = site);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
  });
  after(async () => {
    await browser?.close();
    await site?.close();
    await app?.close();
  });

  /** The bytes stored for a file object of `data` (its url ends in the file's id). */
  async function bytesOf(file: { url: string }): Promise<string> {
    const id = file.url.split('/').pop()!;
    const row = await app.ctx.database.db.selectFrom('submissionFiles').select('storageKey').where('id', '=', id).executeTakeFirstOrThrow();
    const stored = await app.ctx.files.read(row.storageKey!);
    const chunks: Buffer[] = [];
    for await (const chunk of stored!.body) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString();
  }

  it('posts a form with a file input, a multiple file input and text fields; all is stored, an empty file input is no file', async () => {
    const form = await createForm(app, account, { allowedOrigins: [siteUrl] });
    pages.set('/apply', applicationPage(`${app.submitUrl}/${form.id}`));
    const page = await browser.newPage();
    try {
      await page.goto(`${siteUrl}/apply`);
      await page.getByLabel('Name').fill('Grace Hopper');
      await page.getByLabel('Message').fill('My application.');
      await page.getByLabel('CV').setInputFiles({ name: 'cv.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4 the cv') });
      await page.getByLabel('Samples').setInputFiles([
        { name: 'one.png', mimeType: 'image/png', buffer: Buffer.from('png one') },
        { name: 'two.txt', mimeType: 'text/plain', buffer: Buffer.from('text two') },
      ]);
      await Promise.all([page.waitForURL(new RegExp(`/${form.id}/thanks`)), page.click('#send')]);
      assert.equal(await page.textContent('h1'), 'Thank you!');

      const [stored] = await listed(app, account.token, form.id);
      assert.equal(stored.data.name, 'Grace Hopper');
      assert.equal(stored.data.message, 'My application.');
      assert.equal(Object.hasOwn(stored.data, 'portrait'), false, 'the file input left empty is no file');
      const { cv, samples } = stored.data;
      assert.deepEqual({ ...cv, url: undefined }, { name: 'cv.pdf', type: 'application/pdf', size: 15, url: undefined });
      assert.match(cv.url, /\/public\/v1\/files\/[a-z2-7]+$/);
      assert.deepEqual(
        samples.map((file: any) => [file.name, file.type, file.size]),
        [
          ['one.png', 'image/png', 7],
          ['two.txt', 'text/plain', 8],
        ],
      );
      assert.equal(await bytesOf(cv), '%PDF-1.4 the cv');
      assert.equal(await bytesOf(samples[1]), 'text two');
    } finally {
      await page.close();
    }
  });

  it('takes fetch with FormData from the page, and answers JSON with the files', async () => {
    const form = await createForm(app, account);
    pages.set('/script', '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Script</title></head><body><h1>Upload</h1></body></html>');
    const page = await browser.newPage();
    try {
      await page.goto(`${siteUrl}/script`);
      const answer = await page.evaluate(async (action) => {
        const body = new FormData();
        body.append('name', 'Ada');
        body.append('drawing', new File(['%PDF drawing'], 'drawing.pdf', { type: 'application/pdf' }));
        body.append('photos', new File(['gif a'], 'a.gif', { type: 'image/gif' }));
        body.append('photos', new File(['gif b'], 'b.gif', { type: 'image/gif' }));
        const response = await fetch(action, { method: 'POST', body, headers: { Accept: 'application/json' } });
        return { status: response.status, body: await response.json() };
      }, `${app.submitUrl}/${form.id}`);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(answer.body.data.name, 'Ada');
      assert.equal(answer.body.data.drawing.name, 'drawing.pdf');
      assert.deepEqual(
        answer.body.data.photos.map((file: any) => file.name),
        ['a.gif', 'b.gif'],
      );
      const [stored] = await listed(app, account.token, form.id);
      assert.deepEqual(stored.data, answer.body.data);
      assert.equal(await bytesOf(stored.data.photos[1]), 'gif b');
    } finally {
      await page.close();
    }
  });
});
