import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium, newPage } from '../helpers/browser.js';
import { signedUpOwner } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';

const PASSWORD = 'correct horse battery';
const visitor = visitorAddresses(70);
const PEOPLE = ['Ann', 'Bob', 'Cy', 'Di', 'Ed'];

/** Issue 41, item 2: the reading pane in Chromium, beside the list at 1280 px, alone at 390 px. */
describe(`dashboard in Chromium: the inbox's reading pane (${TEST_DIALECT})`, { skip: needsChromium }, () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let formId: string;

  before(async () => {
    app = await startApp();
    browser = await launchBrowser();
    let userId: string;
    let workspaceId: string;
    ({ page, userId, workspaceId } = await signedUpOwner(browser, app, 'owner@example.com', PASSWORD, { viewport: { width: 1280, height: 800 } }));
    formId = (await app.ctx.forms.createForm(userId, workspaceId, { name: 'Contact' })).id;
    // oldest first: the list shows Ed first
    for (const name of PEOPLE) {
      const fields = { name, email: `${name.toLowerCase()}@example.com`, message: `Hello from ${name}.\nA second line.`, topics: ['Pricing', 'Support'] };
      assert.equal((await postJson(app, formId, fields, visitor())).status, 200);
    }
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  const list = () => page.getByRole('table', { name: 'Submissions' });
  const pane = () => page.getByRole('region', { name: /^(Ann|Bob|Cy|Di|Ed)$/ });
  const paneName = async () => (await page.locator('#pane-heading').textContent())?.trim();
  /** Set on the page's window: still there after a change means no reload happened. */
  const markWindow = () => page.evaluate(() => Object.assign(window, { stayed: true }));
  const stayed = () => page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed === true);

  it('opens a line beside the list without a reload; Older and Newer, Back and Forward, Close; the line is read and stays ticked', async () => {
    await page.goto(`${app.publicUrl}/forms/${formId}`);
    await markWindow();
    await list()
      .getByRole('checkbox', { name: /Select the submission of Cy/ })
      .check();
    await list().getByRole('link', { name: 'Di (unread)' }).click();
    await page.waitForURL(/submission=/);
    assert.equal(await paneName(), 'Di');
    assert.ok(await pane().getByText('Hello from Di.').isVisible());
    assert.ok(await pane().getByRole('listitem').filter({ hasText: 'Pricing' }).isVisible(), 'choices read as choices');
    assert.ok(await stayed(), 'no reload');
    assert.ok(await list().isVisible(), 'the list stays beside it');
    assert.equal(await list().getByRole('link', { name: 'Di', exact: true }).getAttribute('aria-current'), 'true', 'its line: current, and read');
    assert.ok(
      await list()
        .getByRole('checkbox', { name: /Select the submission of Cy/ })
        .isChecked(),
      'ticked boxes stay ticked',
    );
    assert.match(await page.title(), /^Di · Submissions/);
    assert.equal(await page.getByRole('status').filter({ hasText: 'Opened Di' }).count(), 1, 'said to a screen reader');

    await pane().getByRole('link', { name: 'Older →' }).click();
    await page.waitForFunction(() => document.getElementById('pane-heading')?.textContent === 'Cy');
    await pane().getByRole('link', { name: '← Newer' }).click();
    await page.waitForFunction(() => document.getElementById('pane-heading')?.textContent === 'Di');
    await page.goBack();
    await page.waitForFunction(() => document.getElementById('pane-heading')?.textContent === 'Cy');
    assert.match(page.url(), /submission=/);
    await page.goForward();
    await page.waitForFunction(() => document.getElementById('pane-heading')?.textContent === 'Di');
    assert.ok(await stayed(), 'still no reload');

    await checkPage(page, 'reading-pane');

    await page.getByRole('link', { name: 'Close' }).click();
    await page.waitForFunction(() => !document.getElementById('reading-pane'));
    assert.equal(new URL(page.url()).search, '', 'the list’s own address again');
    assert.ok(await stayed());
  });

  it('from the keyboard: Enter opens the focused line, and j and k take the pane along', async () => {
    await page.goto(`${app.publicUrl}/forms/${formId}`);
    await page.keyboard.press('j');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.getElementById('pane-heading')?.textContent === 'Ed');
    await page.keyboard.press('j');
    await page.waitForFunction(() => document.getElementById('pane-heading')?.textContent === 'Di');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent?.trim()), 'Di', 'the focus stays in the list');
    await page.keyboard.press('k');
    await page.waitForFunction(() => document.getElementById('pane-heading')?.textContent === 'Ed');
  });

  it('changes made in the pane come back to it: done goes on to the next one', async () => {
    await page.goto(`${app.publicUrl}/forms/${formId}`);
    await list().getByRole('link', { name: /^Bob/ }).click();
    await page.waitForFunction(() => document.getElementById('pane-heading')?.textContent === 'Bob');
    await Promise.all([page.waitForEvent('framenavigated'), pane().getByRole('button', { name: 'Mark as done' }).click()]);
    await page.waitForLoadState('load');
    assert.ok(await page.getByText('Marked as done').isVisible());
    assert.equal(await paneName(), 'Ann', 'the next one, older');
    assert.equal(await list().getByRole('link', { name: /^Bob/ }).count(), 0, 'out of the Open view');
  });

  it('at phone width: the list, then the submission alone with its way back; works without script too', async () => {
    const phone = await newPage(browser);
    try {
      await phone.context().addCookies(await page.context().cookies());
      await phone.setViewportSize({ width: 390, height: 800 });
      await phone.goto(`${app.publicUrl}/forms/${formId}`);
      await Promise.all([phone.waitForURL(/submission=/), phone.getByRole('table', { name: 'Submissions' }).getByRole('link', { name: /^Cy/ }).click()]);
      assert.equal((await phone.locator('#pane-heading').textContent())?.trim(), 'Cy');
      assert.equal(await phone.getByRole('table', { name: 'Submissions' }).isVisible(), false, 'the list makes way');
      await Promise.all([phone.waitForURL((url) => url.search === ''), phone.getByRole('link', { name: '← Back to the list' }).click()]);
      assert.ok(await phone.getByRole('table', { name: 'Submissions' }).isVisible());
    } finally {
      await phone.close();
    }
    const noScript = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 800 } });
    try {
      await noScript.addCookies(await page.context().cookies());
      const plain = await noScript.newPage();
      await plain.goto(`${app.publicUrl}/forms/${formId}?state=all`);
      await Promise.all([plain.waitForURL(/submission=/), plain.getByRole('table', { name: 'Submissions' }).getByRole('link', { name: /^Ann/ }).click()]);
      assert.equal((await plain.locator('#pane-heading').textContent())?.trim(), 'Ann');
      assert.ok(await plain.getByRole('table', { name: 'Submissions' }).isVisible(), 'beside the list, from the server alone');
    } finally {
      await noScript.close();
    }
  });
});
