import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium, newPage } from '../helpers/browser.js';
import { signUp } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';

const PASSWORD = 'correct horse battery';
const visitor = visitorAddresses(70);

/** Issue 41, items 5 to 7 in a browser: labels made, put on lines, assigned and done, as people click them. */
describe(`dashboard in Chromium: labels and triage (${TEST_DIALECT})`, { skip: needsChromium }, () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let formId: string;
  let workspaceId: string;

  before(async () => {
    app = await startApp();
    browser = await launchBrowser();
    page = await newPage(browser);
    await signUp(page, app, 'owner@example.com', PASSWORD);
    const user = await app.ctx.users.requireByEmail('owner@example.com');
    workspaceId = new URL(page.url()).pathname.split('/')[2]!;
    formId = (await app.ctx.forms.createForm(user.id, workspaceId, { name: 'Contact' })).id;
    for (const name of ['Ann Archer', 'Bob Baker', 'Cy Cooper']) {
      assert.equal(
        (await postJson(app, formId, { name, email: `${name.split(' ')[0]!.toLowerCase()}@example.com`, message: `A question from ${name}` }, visitor()))
          .status,
        200,
      );
    }
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  it('makes labels on their page', async () => {
    await page.goto(`${app.publicUrl}/forms/${formId}`);
    await page.getByText('More filters').click();
    await Promise.all([page.waitForURL(/\/labels$/), page.getByRole('link', { name: 'Manage labels' }).click()]);
    for (const [name, colour] of [
      ['Urgent', 'Red'],
      ['Quote', 'Green'],
    ]) {
      await page.getByLabel('Name', { exact: true }).fill(name!);
      await page.getByLabel('Colour', { exact: true }).selectOption({ label: colour! });
      await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Add label' }).click()]);
      assert.ok(
        await page
          .getByRole('status')
          .filter({ hasText: `Label “${name}” added` })
          .isVisible(),
      );
    }
    await checkPage(page, 'labels');
  });

  it('labels, assigns and marks done from the inbox; the lines show it', async () => {
    await page.goto(`${app.publicUrl}/forms/${formId}`);
    const lines = page.getByRole('table', { name: 'Submissions' });
    await lines.getByRole('checkbox', { name: /Ann Archer/ }).check();
    await lines.getByRole('checkbox', { name: /Cy Cooper/ }).check();
    // folded beside the bulk buttons
    await page.getByText('Assign or label').click();
    await page.getByLabel('Label as').selectOption({ label: 'Urgent' });
    await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Add', exact: true }).click()]);
    assert.ok(await page.getByText('Label added to 2 submissions').isVisible());
    await lines.getByRole('checkbox', { name: /Bob Baker/ }).check();
    await page.getByText('Assign or label').click();
    await page.getByLabel('Assign to').selectOption({ label: 'Me (owner@example.com)' });
    await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Assign', exact: true }).click()]);
    const bob = lines.getByRole('row').filter({ has: page.getByRole('link', { name: /^Bob Baker/ }) });
    assert.match((await bob.innerText()).replace(/\s+/g, ' '), /Assigned to You/, 'assigned to me');
    const ann = lines.getByRole('row').filter({ has: page.getByRole('link', { name: /^Ann Archer/ }) });
    assert.match((await ann.innerText()).replace(/\s+/g, ' '), /Label: Urgent/);
    await checkPage(page, 'inbox-triage');

    // in the reading pane beside the list (issue 41, item 2): its labels, then done, which goes on to the next one
    await Promise.all([page.waitForURL(/submission=/), ann.getByRole('link').first().click()]);
    const pane = page.getByRole('region', { name: 'Ann Archer' });
    assert.ok(await pane.getByRole('checkbox', { name: 'Label: Urgent' }).isChecked());
    await pane.getByRole('checkbox', { name: 'Label: Quote' }).check();
    await Promise.all([page.waitForLoadState('load'), pane.getByRole('button', { name: 'Save labels' }).click()]);
    assert.ok(await page.getByText('Labels saved').isVisible());
    assert.match(page.url(), /submission=[a-z0-9]+#labels$/, 'back in the pane');
    await checkPage(page, 'submission-triage');
    await Promise.all([page.waitForURL(new RegExp(`/forms/${formId}(\\?submission=[a-z0-9]+)?$`)), pane.getByRole('button', { name: 'Mark as done' }).click()]);
    assert.equal(await lines.getByRole('link', { name: /^Ann Archer/ }).count(), 0, 'done: out of the Open view');
    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Done' }).click();
    await page.waitForURL(/state=done/);
    assert.ok(await lines.getByRole('link', { name: /^Ann Archer/ }).isVisible());
    await checkPage(page, 'inbox-done');
  });
});
