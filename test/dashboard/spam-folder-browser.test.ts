import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium } from '../helpers/browser.js';
import { signedUpOwner } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';

const PASSWORD = 'correct horse battery';
const visitor = visitorAddresses(93);

/** Issue 41, item 10: the spam folder in Chromium: its lines, the count on its tab, search, select all, Not spam and Delete. */
describe(`dashboard in Chromium: the spam folder as the inbox (${TEST_DIALECT})`, { skip: needsChromium }, () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let formId: string;

  before(async () => {
    app = await startApp();
    browser = await launchBrowser();
    let userId: string;
    let workspaceId: string;
    ({ page, userId, workspaceId } = await signedUpOwner(browser, app, 'owner@example.com', PASSWORD));
    formId = (await app.ctx.forms.createForm(userId, workspaceId, { name: 'Contact' })).id;
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  /** Spam the filter catches: a script tag is 10 points. */
  async function spam(fields: Record<string, unknown>): Promise<void> {
    const answer = await postJson(app, formId, { ...fields, website: '<script>steal()</script>' }, visitor());
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
  }
  const lines = () => page.getByRole('table', { name: /spam/i }).getByRole('row');
  const spamTab = () => page.getByRole('navigation', { name: 'Form' }).getByRole('link', { name: /^Spam/ });

  it('lists spam a line each, counted on the Spam tab, and searches it', async () => {
    await page.goto(`${app.publicUrl}/forms/${formId}/spam`);
    assert.ok(await page.getByText('No spam caught.', { exact: false }).isVisible());
    assert.equal(await spamTab().innerText(), 'Spam', 'no count while the folder is empty');
    await checkPage(page, 'spam-folder-empty');

    await spam({ name: 'Mallory Bot', email: 'mallory@example.com', message: 'Cheap watches, today only' });
    await spam({ name: 'Gâteau Seller', email: 'cakes@example.com', message: 'Buy cakes in bulk\nwith a long second line' });
    await spam({ email: `${'x'.repeat(80)}@example.com`, message: `A very long pitch ${'word '.repeat(60)}` });
    await page.reload();
    assert.equal(await lines().count(), 4, 'a header row for screen readers and three lines');
    assert.match(await spamTab().innerText(), /^Spam\s*3/);
    assert.equal(await page.getByRole('link', { name: /^Spam 3 in the folder$/ }).count(), 1, 'a screen reader hears what the number counts');
    // one line of meaning each: no taller than the inbox's at 1280 px
    for (let i = 1; i < 4; i++) {
      const box = (await lines().nth(i).boundingBox())!;
      assert.ok(box.height <= 56, `line ${i} is ${box.height} px tall`);
    }
    assert.ok(await page.getByText(/each is removed 30 days after it came \(the oldest here on /).isVisible());
    await checkPage(page, 'spam-folder-lines');

    // its line leads to its page, which says why it was caught
    await Promise.all([page.waitForURL(/\/submissions\/[a-z2-7]+$/), page.getByRole('link', { name: 'Mallory Bot' }).click()]);
    assert.ok(await page.getByText('The spam filter caught it.').isVisible());
    await page.goBack();

    await page.getByRole('searchbox', { name: 'Search' }).fill('GATEAU');
    await Promise.all([page.waitForURL(/search=GATEAU/), page.getByRole('button', { name: 'Search' }).click()]);
    assert.equal(await lines().count(), 2, 'one match, without case or accents');
    assert.ok(await page.getByRole('link', { name: 'Gâteau Seller' }).isVisible());
    await checkPage(page, 'spam-folder-search');

    await page.getByRole('searchbox', { name: 'Search' }).fill('nothing like it');
    await Promise.all([page.waitForURL(/search=nothing/), page.getByRole('searchbox', { name: 'Search' }).press('Enter')]);
    assert.ok(await page.getByText('Nothing in the spam folder matches this search.').isVisible());
    await Promise.all([page.waitForURL(/\/spam$/), page.getByRole('link', { name: 'Clear the search' }).click()]);
    assert.equal(await lines().count(), 4);
  });

  it('selects all, moves them with Not spam; deletes one through the confirmation', async () => {
    await page.goto(`${app.publicUrl}/forms/${formId}/spam`);
    const boxes = page.getByRole('checkbox', { name: /^Select the submission of / });
    await page.getByRole('checkbox', { name: 'Select all on this page' }).check();
    for (const box of await boxes.all()) assert.ok(await box.isChecked(), 'select all ticks every line');
    await boxes.first().uncheck();
    assert.equal(await page.getByRole('checkbox', { name: 'Select all on this page' }).isChecked(), false, 'and is unticked with one of them');

    await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Not spam' }).click()]);
    assert.ok(await page.getByRole('status').filter({ hasText: '2 submissions moved to the inbox; their deliveries are on their way' }).isVisible());
    assert.equal(await lines().count(), 2, 'one left');
    assert.match(await spamTab().innerText(), /^Spam\s*1/);

    await page.getByRole('checkbox', { name: 'Select all on this page' }).check();
    await Promise.all([page.waitForURL(/\/submissions\/delete\?/), page.getByRole('button', { name: 'Delete' }).click()]);
    assert.ok(await page.getByText(/now rather than when the spam folder’s retention ends/).isVisible());
    await checkPage(page, 'spam-folder-delete');
    await Promise.all([page.waitForURL(/\/spam$/), page.getByRole('button', { name: 'Delete submission' }).click()]);
    assert.ok(await page.getByRole('status').filter({ hasText: 'Submission deleted' }).isVisible());
    assert.ok(await page.getByText('No spam caught.', { exact: false }).isVisible());

    await page.goto(`${app.publicUrl}/forms/${formId}`);
    assert.ok(await page.getByRole('link', { name: /^Gâteau Seller/ }).isVisible(), 'the moved ones are in the inbox');
  });
});
