import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium, newPage, SCREENSHOT_DIR } from '../helpers/browser.js';
import { signUp } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';

const PASSWORD = 'correct horse battery';
const visitor = visitorAddresses(66);

const PEOPLE = ['Ada Lovelace', 'Grace Hopper', 'Alan Turing', 'Katherine Johnson', 'Edsger Dijkstra', 'Barbara Liskov', 'Donald Knuth', 'Frances Allen'];

/** An ordinary enquiry, as the issue measured with: a name, an address, a message of a few lines, a checkbox group. */
function enquiry(n: number) {
  const name = PEOPLE[n % PEOPLE.length]!;
  return {
    name,
    email: `${name.split(' ')[0]!.toLowerCase()}.${n}@example.com`,
    message: `Hello, we are planning the new office for the spring and would like a quote for ${10 + n} desks and chairs.\nCould you also tell us how long delivery takes?\n\nThanks, ${name}`,
    interests: n % 3 === 0 ? ['Desks', 'Chairs'] : ['Chairs'],
  };
}

describe(`dashboard in Chromium: the inbox's lines (${TEST_DIALECT})`, { skip: needsChromium }, () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let formId: string;
  let workspaceId: string;

  before(async () => {
    fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
    app = await startApp();
    browser = await launchBrowser();
    page = await newPage(browser);
    await signUp(page, app, 'owner@example.com', PASSWORD);
    const user = await app.ctx.users.requireByEmail('owner@example.com');
    workspaceId = new URL(page.url()).pathname.split('/')[2]!;
    formId = (await app.ctx.forms.createForm(user.id, workspaceId, { name: 'Office enquiries' })).id;
    // one at a time, oldest first: the list's order is known
    for (let n = 0; n < 40; n++) {
      const answer = await postJson(app, formId, enquiry(n), visitor());
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
    }
    await postJson(app, formId, { email: 'only.an.address@example.com', company: 'Initech' }, visitor());
    await postJson(app, formId, { company: 'Globex', phone: '555 0100' }, visitor());
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  it('shows at least 12 submissions on the first screen at 1280×800, a line each', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${app.publicUrl}/forms/${formId}`);
    const lines = page.getByRole('table', { name: 'Submissions' }).getByRole('row');
    // the header row is for screen readers; 42 submissions fit on one page
    assert.equal(await lines.count(), 43);
    const boxes = await lines.evaluateAll((rows) => rows.slice(1).map((row) => row.getBoundingClientRect().toJSON() as DOMRect));
    const onFirstScreen = boxes.filter((box) => box.bottom <= 800).length;
    await page.screenshot({ path: `${SCREENSHOT_DIR}/inbox-lines-first-screen.png` });
    assert.ok(onFirstScreen >= 12, `${onFirstScreen} submissions on the first screen`);
    const tallest = Math.max(...boxes.map((box) => box.height));
    assert.ok(tallest <= 56, `the tallest line is ${tallest} px`);
    await checkPage(page, 'inbox-lines');
  });

  it('names each line by who sent it, with the first line of the message and when', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${app.publicUrl}/forms/${formId}`);
    const lines = page.getByRole('table', { name: 'Submissions' }).getByRole('row');
    // newest first: the two without a name, then the 40th enquiry (n = 39)
    const cells = async (n: number) => (await lines.nth(n).getByRole('cell').allInnerTexts()).map((text) => text.replace(/\s*\(unread\)$/, ''));
    const nameless = await cells(1);
    assert.match(nameless[1]!, /^No name given\b/, 'nobody named: said so');
    assert.equal(nameless[2], 'Globex', 'no message: the first field that names nobody');
    const addressOnly = await cells(2);
    assert.match(addressOnly[1]!, /^only\.an\.address@example\.com\b/, 'no name: the address');
    assert.equal(addressOnly[2], 'Initech');
    const newest = await cells(3);
    assert.equal(newest[1], PEOPLE[39 % PEOPLE.length]);
    assert.equal(newest[2], 'Hello, we are planning the new office for the spring and would like a quote for 49 desks and chairs.');
    assert.match(newest[3]!, /^\d\d:\d\d$/, 'today: the time of day');
    assert.match((await lines.nth(3).getByRole('cell').nth(3).locator('time').getAttribute('title')) ?? '', /\d{4}, \d\d:\d\d UTC$/);
  });

  it('shows unread as a dot and a bold name, and read ones plain', async () => {
    await page.goto(`${app.publicUrl}/forms/${formId}`);
    const weights = async (n: number) =>
      page
        .getByRole('table', { name: 'Submissions' })
        .getByRole('row')
        .nth(n)
        .evaluate((row) => ({
          name: getComputedStyle(row.querySelector('a')!).fontWeight,
          preview: getComputedStyle((row as HTMLTableRowElement).cells[2]!).fontWeight,
        }));
    assert.deepEqual(await weights(3), { name: '700', preview: '400' });
    const first = page.getByRole('link', { name: `${PEOPLE[39 % PEOPLE.length]} (unread)` }).first();
    // the line opens it in the reading pane (issue 41, item 2)
    await Promise.all([page.waitForURL(/submission=/), first.click()]);
    assert.ok(await page.getByRole('heading', { level: 2, name: PEOPLE[39 % PEOPLE.length] }).isVisible());
    await page.goBack();
    await page.reload();
    assert.deepEqual(await weights(3), { name: '400', preview: '400' });
    assert.ok(
      await page
        .getByRole('link', { name: PEOPLE[39 % PEOPLE.length], exact: true })
        .first()
        .isVisible(),
    );
  });

  it('opens a submission from anywhere on its line', async () => {
    await page.goto(`${app.publicUrl}/forms/${formId}`);
    const line = page.getByRole('table', { name: 'Submissions' }).getByRole('row').nth(5);
    const who = (await line.getByRole('cell').nth(1).innerText()).replace(/\s*\(unread\)$/, '');
    // the message's cell, well right of the name's link
    // (a mouse at its middle: Playwright's own click refuses a cell that another element, the link, covers)
    const box = (await line.getByRole('cell').nth(2).boundingBox())!;
    await Promise.all([page.waitForURL(/submission=/), page.mouse.click(box.x + box.width / 2, box.y + box.height / 2)]);
    assert.ok(await page.getByRole('heading', { level: 2, name: who }).isVisible());
    // the checkbox stays a checkbox
    await page.goBack();
    const checkbox = page.getByRole('table', { name: 'Submissions' }).getByRole('row').nth(5).getByRole('checkbox');
    await checkbox.click();
    assert.ok(await checkbox.isChecked());
    assert.match(page.url(), new RegExp(`/forms/${formId}$`));
  });

  it('names the form on the workspace’s list, and fits a phone', async () => {
    await page.goto(`${app.publicUrl}/w/${workspaceId}/submissions`);
    const line = page.getByRole('table', { name: 'Submissions' }).getByRole('row').nth(3);
    assert.equal(await line.getByRole('link', { name: 'Office enquiries' }).getAttribute('href'), `/forms/${formId}`);
    await checkPage(page, 'inbox-lines-workspace');
    await page.setViewportSize({ width: 390, height: 800 });
    const height = await line.evaluate((row) => row.getBoundingClientRect().height);
    assert.ok(height <= 96, `a line at phone width is ${height} px`);
    await page.setViewportSize({ width: 1280, height: 900 });
  });
});
