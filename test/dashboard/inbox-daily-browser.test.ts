import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium, SCREENSHOT_DIR } from '../helpers/browser.js';
import { signUp } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';

const PASSWORD = 'correct horse battery';
const visitor = visitorAddresses(78);

/** Whether the element is wholly inside the window as it first shows (no scrolling). */
async function inFirstScreen(page: Page, element: Locator): Promise<boolean> {
  const box = await element.boundingBox();
  const size = page.viewportSize()!;
  return box !== null && box.y >= 0 && box.y + box.height <= size.height && box.x >= 0 && box.x + box.width <= size.width;
}

describe(`dashboard in Chromium: the inbox's daily work (${TEST_DIALECT})`, { skip: needsChromium }, () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let formId: string;
  let workspaceId: string;

  before(async () => {
    app = await startApp();
    browser = await launchBrowser();
    // the browser's own zone, which the dashboard uses until the account chooses one
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: 'Asia/Tokyo' });
    page = await context.newPage();
    await signUp(page, app, 'owner@example.com', PASSWORD);
    const user = await app.ctx.users.requireByEmail('owner@example.com');
    workspaceId = new URL(page.url()).pathname.split('/')[2]!;
    formId = (await app.ctx.forms.createForm(user.id, workspaceId, { name: 'Contact' })).id;
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  async function submit(fields: Record<string, unknown>): Promise<void> {
    const answer = await postJson(app, formId, fields, visitor());
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
  }

  it('shows the newest submissions first on the screen, bold while unread, and the chart folded below them', async () => {
    for (let i = 0; i < 30; i++) await submit({ name: `Person ${i}`, email: `person${i}@example.com`, message: 'Hello' });
    await submit({
      name: 'Long Address',
      email: 'a.very.long.email.address.for.testing@subdomain.example-company.com',
      website: 'https://www.example.com/a/very/long/path/that/goes/on/and/on?with=query&and=more',
      message: 'Hi',
    });
    await page.goto(`${app.publicUrl}/forms/${formId}`);
    const rows = page.getByRole('table', { name: undefined }).first().getByRole('row');
    assert.equal(await rows.count(), 32, 'a header row (for screen readers) and 31 submissions: a page holds 50');
    assert.equal(await page.getByRole('link', { name: / \(unread\)$/ }).count(), 31, 'each new one says so to a screen reader');
    const weight = await rows
      .nth(1)
      .getByRole('link')
      .first()
      .evaluate((link) => getComputedStyle(link).fontWeight);
    assert.equal(weight, '700');
    assert.ok(await page.getByRole('link', { name: 'Submissions 31 unread' }).isVisible(), 'the tab counts them');
    // the chart is there, closed
    await checkPage(page, 'inbox-daily-list');
    const chart = page.getByText('Last 30 days', { exact: true });
    assert.ok(await chart.isVisible());
    assert.equal(await page.getByRole('img', { name: /Submissions per day/ }).isVisible(), false);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `inbox-daily-first-screen-${width}.png`) });
      // the newest one's link on the first screen at both widths; at 1280 px its whole row and those below
      assert.ok(await inFirstScreen(page, rows.nth(1).getByRole('link').first()), `the newest submission is on the first screen at ${width} px`);
      if (width === 1280) assert.ok(await inFirstScreen(page, rows.nth(2)), 'two whole rows (the first a tall one) on the first screen at 1280 px');
      if (width === 390) {
        for (const tab of ['Submissions', 'Spam', 'Setup', 'Settings', 'Templates', 'Deliveries']) {
          const link = page.getByRole('navigation', { name: 'Form' }).getByRole('link', { name: new RegExp(`^${tab}`) });
          assert.ok(await inFirstScreen(page, link), `the ${tab} tab shows at 390 px`);
        }
      }
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    await chart.click();
    assert.ok(await page.getByRole('img', { name: /Submissions per day/ }).isVisible(), 'the chart opens');
    await chart.click();
  });

  it('uses the browser’s time zone, with UTC on hover', async () => {
    // the first page set the cookie: times are in Tokyo's zone now
    await page.reload();
    const time = page.getByRole('table').first().getByRole('row').nth(1).locator('time');
    // today's: the time of day in Tokyo, the whole of it and UTC's on hover
    assert.match((await time.textContent()) ?? '', /^\d\d:\d\d$/);
    assert.match((await time.getAttribute('title')) ?? '', /^\d+ \w{3} \d{4}, \d\d:\d\d GMT\+9 \(\d+ \w{3} \d{4}, \d\d:\d\d UTC\)$/);
  });

  it('selects all on this page (the script ticks every row) and marks them read', async () => {
    await page.goto(`${app.publicUrl}/forms/${formId}`);
    await page.getByLabel('Select all on this page').check();
    const boxes = page.getByRole('checkbox', { name: /^Select the submission of / });
    assert.equal(await boxes.count(), 31);
    for (let i = 0; i < 31; i++) assert.ok(await boxes.nth(i).isChecked());
    await boxes.nth(0).uncheck();
    assert.equal(await page.getByLabel('Select all on this page').isChecked(), false, 'unticking a row unticks the page’s box');
    await boxes.nth(0).check();
    assert.ok(await page.getByLabel('Select all on this page').isChecked());
    await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Mark as read' }).click()]);
    assert.ok(await page.getByText('31 submissions marked as read').isVisible());
    assert.equal(await page.getByRole('link', { name: / \(unread\)$/ }).count(), 0);
  });

  it('opens a submission: Previous and Next, Reply, a note shown in the inbox, Mark as unread and Mark as spam', async () => {
    await page.goto(`${app.publicUrl}/forms/${formId}`);
    const rows = page.getByRole('table').first().getByRole('row');
    // the line opens it in the reading pane; its own page is a link away
    await Promise.all([page.waitForURL(/submission=/), rows.nth(2).getByRole('link').first().click()]);
    await Promise.all([page.waitForURL(/\/submissions\/[a-z0-9]+$/), page.getByRole('link', { name: /^Its deliveries and details/ }).click()]);
    const second = page.url();
    assert.ok(await page.getByRole('link', { name: 'Reply to person29@example.com' }).isVisible());
    assert.equal(await page.getByRole('link', { name: /^Reply/ }).getAttribute('href'), 'mailto:person29@example.com');
    await Promise.all([page.waitForURL(/\/submissions\//), page.getByRole('link', { name: /Previous/ }).click()]);
    assert.ok(await page.getByRole('region', { name: 'Fields' }).getByText('a.very.long.email.address.for.testing@subdomain.example-company.com').isVisible());
    await Promise.all([page.waitForURL(second), page.getByRole('link', { name: /Next/ }).click()]);

    await page.getByLabel('Note for your team').fill('Call back on Monday');
    await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Save note' }).click()]);
    assert.ok(await page.getByText('Note saved').isVisible());
    await checkPage(page, 'submission-daily');

    await Promise.all([page.waitForURL(/\/forms\/[a-z0-9]+$/), page.getByRole('button', { name: 'Mark as unread' }).click()]);
    assert.ok(await page.getByRole('img', { name: 'Note: Call back on Monday' }).isVisible(), 'the note shows in the inbox');
    assert.equal(await page.getByRole('link', { name: / \(unread\)$/ }).count(), 1);

    await page.goto(second);
    await Promise.all([page.waitForURL(/\/forms\/[a-z0-9]+$/), page.getByRole('button', { name: 'Mark as spam' }).click()]);
    assert.ok(await page.getByText('Moved to the spam folder').isVisible());
    await page.goto(`${app.publicUrl}/forms/${formId}/spam`);
    // who marked it is on its page: the folder's lines are the inbox's (issue 41)
    await Promise.all([page.waitForURL(/\/submissions\/[a-z0-9]+$/), page.getByRole('table', { name: 'Spam' }).getByRole('link').first().click()]);
    assert.ok(await page.getByText('Marked as spam by owner@example.com').isVisible());
    await page.goBack();
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      const button = page.getByRole('button', { name: 'Not spam' }).first();
      const box = (await button.boundingBox())!;
      assert.ok(box.height < 48, `Not spam stays on one line at ${width} px (${box.height} px high)`);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    await checkPage(page, 'spam-daily');
  });

  it('bulk deletes through the confirmation, and the forms list counts what is new', async () => {
    await page.goto(`${app.publicUrl}/forms/${formId}`);
    const boxes = page.getByRole('checkbox', { name: /^Select the submission of / });
    await boxes.nth(0).check();
    await boxes.nth(1).check();
    await Promise.all([page.waitForURL(/\/submissions\/delete\?/), page.getByRole('button', { name: 'Delete' }).click()]);
    await Promise.all([page.waitForURL(/\/forms\//), page.getByRole('button', { name: /^Delete 2 submissions/ }).click()]);
    assert.ok(await page.getByText('2 submissions deleted').isVisible());

    // every earlier one is read by now (all on one page were marked read)
    await submit({ name: 'Newcomer', message: 'Hello again' });
    await page.goto(`${app.publicUrl}/w/${workspaceId}`);
    const row = page.getByRole('row', { name: /Contact/ });
    assert.ok(await row.getByText(/unread/).count(), 'the form’s row says how many are unread');
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      assert.ok(await inFirstScreen(page, page.getByRole('link', { name: 'Contact' })), `the first form is on the first screen at ${width} px`);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    const spark = page.locator('svg.sparkline').first();
    const cell = page.getByRole('cell', { name: /Last 30 days/ }).first();
    const [sparkBox, cellBox] = [(await spark.boundingBox())!, (await cell.boundingBox())!];
    assert.ok(sparkBox.width >= cellBox.width - 40, `the sparkline fills its column (${sparkBox.width} of ${cellBox.width})`);
    await checkPage(page, 'workspace-daily');
  });

  it('chooses a time zone on the account page', async () => {
    await page.goto(`${app.publicUrl}/account`);
    assert.equal(await page.getByLabel('Show times in').inputValue(), '');
    assert.ok(await page.getByRole('option', { name: 'Your browser’s (Asia/Tokyo)' }).count());
    await page.getByLabel('Show times in').selectOption('America/New_York');
    await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Save time zone' }).click()]);
    assert.ok(await page.getByText('Times are shown in America/New_York').isVisible());
    await checkPage(page, 'account-time-zone');
    await page.goto(`${app.publicUrl}/forms/${formId}`);
    const time = page.getByRole('table').first().getByRole('row').nth(1).locator('time');
    assert.match((await time.getAttribute('title')) ?? '', /GMT-[45] \(/);
  });
});
