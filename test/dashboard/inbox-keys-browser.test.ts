import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium, newPage } from '../helpers/browser.js';
import { signUp } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';

const PASSWORD = 'correct horse battery';
const visitor = visitorAddresses(68);
const PEOPLE = ['Ann', 'Bob', 'Cy', 'Di', 'Ed', 'Flo'];

/** Issue 41, item 3: the inbox and a submission's page from the keyboard. */
describe(`dashboard in Chromium: the inbox's keys (${TEST_DIALECT})`, { skip: needsChromium }, () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let formId: string;

  before(async () => {
    app = await startApp();
    browser = await launchBrowser();
    page = await newPage(browser);
    await signUp(page, app, 'owner@example.com', PASSWORD);
    const user = await app.ctx.users.requireByEmail('owner@example.com');
    const workspaceId = new URL(page.url()).pathname.split('/')[2]!;
    formId = (await app.ctx.forms.createForm(user.id, workspaceId, { name: 'Contact' })).id;
    // oldest first: the list shows Flo first
    for (const name of PEOPLE) assert.equal((await postJson(app, formId, { name, message: `Hello from ${name}` }, visitor())).status, 200);
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  const focusedName = () => page.evaluate(() => document.activeElement?.textContent?.replace(/ \(unread\)$/, '') ?? '');
  /** Presses `key` and waits for the page it leads to (a form's post answered with its redirect). */
  const pressAndLoad = async (key: string) => {
    await Promise.all([page.waitForEvent('framenavigated'), page.keyboard.press(key)]);
    await page.waitForLoadState('load');
  };
  const listed = async () =>
    (await page.getByRole('table', { name: 'Submissions' }).getByRole('link').allInnerTexts()).map((text) => text.replace(/\s+/g, ' '));

  it('moves with j and k, marks done with e, spam with #, unread with u, each on the focused line only', async () => {
    await page.goto(`${app.publicUrl}/forms/${formId}`);
    await page.keyboard.press('j');
    assert.equal(await focusedName(), 'Flo');
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    assert.equal(await focusedName(), 'Di');
    await page.keyboard.press('k');
    assert.equal(await focusedName(), 'Ed');
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement!.closest('tr')!).outlineStyle);
    assert.equal(outline, 'solid', 'the focused line shows it');

    await pressAndLoad('e');
    assert.ok(await page.getByText('1 submission marked as done').isVisible());
    assert.ok(!(await listed()).some((name) => name.startsWith('Ed')), 'out of the Open view');

    await page.keyboard.press('j');
    assert.equal(await focusedName(), 'Flo');
    await pressAndLoad('#');
    assert.ok(await page.getByText('1 submission moved to the spam folder').isVisible());

    await page.keyboard.press('j');
    assert.equal(await focusedName(), 'Di');
    await pressAndLoad('u');
    assert.ok(await page.getByText('1 submission marked as read').isVisible(), 'u on an unread line marks it read');
    await page.keyboard.press('j');
    await pressAndLoad('u');
    assert.ok(await page.getByText('1 submission marked as unread').isVisible(), 'and on a read one, unread');
    assert.deepEqual(await listed(), ['Di (unread)', 'Cy (unread)', 'Bob (unread)', 'Ann (unread)']);
  });

  it('takes nothing from a text field; / goes to the search, ? lists the keys in a dialog', async () => {
    await page.goto(`${app.publicUrl}/forms/${formId}`);
    await page.keyboard.press('/');
    const search = page.getByLabel('Search');
    assert.equal(await search.evaluate((el) => el === document.activeElement), true);
    await page.keyboard.type('jek#u?');
    assert.equal(await search.inputValue(), 'jek#u?', 'typed into the field, not taken as keys');
    assert.equal(await page.getByRole('dialog').count(), 0);
    await search.fill('');

    await page.getByRole('table', { name: 'Submissions' }).getByRole('link').first().focus();
    await page.keyboard.press('?');
    const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    assert.ok(await dialog.isVisible());
    assert.ok(await dialog.getByText('Mark as done').isVisible());
    await checkPage(page, 'inbox-keys-help');
    await page.keyboard.press('Escape');
    assert.equal(await dialog.isVisible(), false);
    await page.getByRole('button', { name: 'Keyboard shortcuts (?)' }).click();
    assert.ok(await dialog.isVisible(), 'the button opens it too');
    await dialog.getByRole('button', { name: 'Close' }).click();
    assert.equal(await dialog.isVisible(), false);
  });

  it('opens with o (in the reading pane), and on a submission’s page goes older with j, newer with k, and marks done with e', async () => {
    await page.goto(`${app.publicUrl}/forms/${formId}`);
    await page.keyboard.press('j');
    await Promise.all([page.waitForURL(/submission=/), page.keyboard.press('o')]);
    assert.ok(await page.getByRole('heading', { level: 2, name: 'Di' }).isVisible());
    await Promise.all([page.waitForURL(/\/submissions\/[a-z2-7]+$/), page.getByRole('link', { name: /^Its deliveries and details/ }).click()]);
    assert.ok(await page.getByRole('heading', { level: 1, name: 'Di' }).isVisible());
    await pressAndLoad('j');
    assert.ok(await page.getByRole('heading', { level: 1, name: 'Cy' }).isVisible());
    await pressAndLoad('k');
    assert.ok(await page.getByRole('heading', { level: 1, name: 'Di' }).isVisible());
    await Promise.all([page.waitForURL(new RegExp(`/forms/${formId}$`)), page.keyboard.press('e')]);
    assert.ok(await page.getByText('Marked as done').isVisible());
    assert.deepEqual(await listed(), ['Cy', 'Bob (unread)', 'Ann (unread)'], 'Cy was opened on the way');
  });
});
