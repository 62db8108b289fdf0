import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { createAccount, createForm, type Account } from '../helpers/fixtures.js';
import { checkPage } from '../helpers/browser.js';
import { listed, storedRows } from '../helpers/submit.js';
import { type PageSite, startPageSite } from '../helpers/page-site.js';

const CHROMIUM = '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];

/** A site's contact page: a plain HTML form, no script, posting to Formgate. */
function contactPage(action: string, extra = '', method = ' method="post"'): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Contact us</title></head><body>
<form action="${action}"${method}>
  <label>Name <input name="name" id="name"></label>
  <label>Email <input name="email" id="email" type="email"></label>
  <label>Message <textarea name="message" id="message"></textarea></label>
  <label><input type="checkbox" name="topics" value="sales" id="sales"> Sales</label>
  <label><input type="checkbox" name="topics" value="support" id="support"> Support</label>
  <select name="size" id="size"><option>S</option><option>M</option></select>
  <input type="text" name="_gotcha" style="display:none" tabindex="-1" autocomplete="off">
  <label>Company <input name="company"></label>
  <input id="no-name" value="dropped">
  ${extra}
  <button type="submit" id="send">Send</button>
</form></body></html>`;
}

describe('a real HTML form in headless Chromium', { skip: !fs.existsSync(CHROMIUM) && `SKIPPED: ${CHROMIUM} is not installed (.ci/run installs it)` }, () => {
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

  it('posts the form, follows the redirect to the thank-you page, and the submission is stored as typed', async () => {
    // the site is on the form's list, so the thank-you page links back to it
    const form = await createForm(app, account, { allowedOrigins: [siteUrl] });
    pages.set('/contact', contactPage(`${app.submitUrl}/${form.id}`));
    const page = await browser.newPage();
    try {
      await page.goto(`${siteUrl}/contact`);
      await page.fill('#name', 'Margaret Hamilton');
      await page.fill('#email', 'margaret@example.com');
      await page.fill('#message', 'Bonjour! Ünïcödé and a second line.\nLine two.');
      await page.check('#sales');
      await page.check('#support');
      await page.selectOption('#size', 'M');
      await Promise.all([page.waitForURL(new RegExp(`/${form.id}/thanks`)), page.click('#send')]);

      assert.equal(await page.textContent('h1'), 'Thank you!');
      assert.ok(await page.isVisible('main'));
      // the link back to the form (the browser sends the site's origin as Referer across origins)
      const back = await page.getAttribute('a', 'href');
      assert.ok(back?.startsWith(siteUrl), `back link ${back}`);

      const [stored] = await listed(app, account.token, form.id);
      assert.deepEqual(stored.data, {
        name: 'Margaret Hamilton',
        email: 'margaret@example.com',
        message: 'Bonjour! Ünïcödé and a second line.\r\nLine two.',
        topics: ['sales', 'support'],
        size: 'M',
        company: '',
      });
    } finally {
      await page.close();
    }
  });

  it('follows _redirect and shows the custom wording of _feedback on the thank-you page', async () => {
    // _redirect back to the site the form is on needs no list; custom wording does
    const form = await createForm(app, account);
    const onList = await createForm(app, account, { allowedOrigins: [siteUrl] });
    pages.set('/done', '<!doctype html><title>Done</title><h1>Back on our site</h1>');
    pages.set(
      '/with-redirect',
      contactPage(
        `${app.submitUrl}/${form.id}`,
        `<input type="hidden" name="_redirect" value="${siteUrl}/done"><input type="hidden" name="_append" value="true">`,
      ),
    );
    pages.set(
      '/with-feedback',
      contactPage(
        `${app.submitUrl}/${onList.id}`,
        '<input type="hidden" name="_feedback.success.title" value="Merci !"><input type="hidden" name="_feedback.dark" value="true">',
      ),
    );
    const page = await browser.newPage();
    try {
      await page.goto(`${siteUrl}/with-redirect`);
      await page.fill('#name', 'Katherine Johnson');
      await Promise.all([page.waitForURL(/\/done\?submissionId=/), page.click('#send')]);
      assert.equal(await page.textContent('h1'), 'Back on our site');
      const submissionId = new URL(page.url()).searchParams.get('submissionId');
      assert.equal((await listed(app, account.token, form.id))[0].id, submissionId);

      await page.goto(`${siteUrl}/with-feedback`);
      await page.fill('#name', 'Dorothy Vaughan');
      await Promise.all([page.waitForURL(/\/thanks\?/), page.click('#send')]);
      assert.equal(await page.textContent('h1'), 'Merci !');
      assert.equal(await page.getAttribute('body', 'class'), 'theme-dark');
    } finally {
      await page.close();
    }
  });

  it('sends a form without method as GET: stored as typed, thank-you page in _feedback.language; the bare address says what it is', async () => {
    // the hosted service's Hugo, Jekyll and WordPress examples: <form action="…"> and nothing else
    const form = await createForm(app, account, { allowedOrigins: [siteUrl] });
    pages.set('/get', contactPage(`${app.submitUrl}/${form.id}`, '<input type="hidden" name="_feedback.language" value="de">', ''));
    const context = await browser.newContext({ locale: 'fr-FR' });
    const page = await context.newPage();
    try {
      await page.goto(`${siteUrl}/get`);
      await page.getByLabel('Name').fill('Grace Hopper');
      await page.getByLabel('Message').fill('Zeile eins & zwei + drei');
      await page.getByLabel('Support').check();
      await Promise.all([page.waitForURL(new RegExp(`/${form.id}/thanks`)), page.getByRole('button', { name: 'Send' }).click()]);
      assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Vielen Dank!');
      assert.equal(await page.getAttribute('html', 'lang'), 'de');
      assert.ok(await page.getByRole('link', { name: 'Zurück' }).isVisible(), 'the way back, in German');
      await checkPage(page, 'submit-thanks-get-de');
      const [stored] = await storedRows(app, form.id);
      assert.deepEqual(stored!.data, { name: 'Grace Hopper', email: '', message: 'Zeile eins & zwei + drei', topics: 'support', size: 'S', company: '' });

      // a person who opens the action address itself, in the browser's language (French here)
      await page.goto(`${app.submitUrl}/${form.id}`);
      assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Ceci est l’adresse d’un formulaire');
      await checkPage(page, 'submit-form-address-fr');
      assert.equal((await storedRows(app, form.id)).length, 1, 'opening the address stores nothing');
    } finally {
      await context.close();
    }
  });

  it('shows the readable error page when the form is unknown', async () => {
    pages.set('/broken', contactPage(`${app.submitUrl}/aaaaaaaaaaaaaaaaaaaa`));
    const page = await browser.newPage();
    try {
      await page.goto(`${siteUrl}/broken`);
      await page.fill('#name', 'Nobody');
      const [response] = await Promise.all([page.waitForResponse(`${app.submitUrl}/aaaaaaaaaaaaaaaaaaaa`), page.click('#send')]);
      assert.equal(response.status(), 404);
      await page.waitForSelector('h1');
      assert.equal(await page.textContent('h1'), 'Form not found');
    } finally {
      await page.close();
    }
  });
});
