import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium, SCREENSHOT_DIR } from '../helpers/browser.js';
import { signedUpOwner } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { AIRTABLE_BASE, AIRTABLE_TOKEN, type DestinationStandIns, SPREADSHEET_ID, startDestinationStandIns } from '../helpers/destination-stand-ins.js';
import { until } from '../helpers/eventually.js';
import { postJson } from '../helpers/submit.js';

const PASSWORD = 'correct horse battery';

describe(`dashboard in Chromium: a form's destinations (${TEST_DIALECT})`, { skip: needsChromium }, () => {
  let app: TestApp;
  let services: DestinationStandIns;
  let browser: Browser;
  let page: Page;
  let userId: string;
  let workspaceId: string;

  before(async () => {
    services = await startDestinationStandIns();
    app = await startApp({ ...services.env, allowPrivateWebhooks: 'true' }, { delivery: true });
    browser = await launchBrowser();
    ({ page, userId, workspaceId } = await signedUpOwner(browser, app, 'owner@example.com', PASSWORD));
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await services?.close();
  });

  const panel = () => page.getByRole('region', { name: 'Destinations' });
  const flash = () => page.getByRole('status').first();

  it('adds a destination, maps its fields, tests it and removes it, without script; never shows its secret', async () => {
    const formId = (await app.ctx.forms.createForm(userId, workspaceId, { name: 'Leads' })).id;
    await postJson(app, formId, { name: 'Ada', email: 'ada@example.com', message: 'Hello' }, { localAddress: '127.0.6.1' });
    await page.goto(`${app.publicUrl}/forms/${formId}/settings#destinations`);
    await checkPage(page, 'destinations-empty');

    // a refused add: the messages beside the fields, the form left open, nothing stored
    await panel().getByText('Add Airtable', { exact: true }).click();
    await panel().getByLabel('Base id').fill('my base');
    await Promise.all([page.waitForLoadState('load'), panel().getByRole('button', { name: 'Add Airtable destination' }).click()]);
    assert.equal(await panel().getByText('A base id is app followed by 14 letters and digits, as in airtable.com/appXXXXXXXXXXXXXX/….').isVisible(), true);
    assert.equal(await panel().getByLabel('Base id').getAttribute('aria-invalid'), 'true');
    assert.equal(await panel().getByText('Enter the personal access token.').isVisible(), true);
    await checkPage(page, 'destinations-error');

    // a newsletter's form, refused: its four fields and the key, each with its message
    await page.goto(`${app.publicUrl}/forms/${formId}/settings#destinations`);
    await panel().getByText('Add listmonk (newsletter)', { exact: true }).click();
    await panel().getByLabel('listmonk address').fill('lists.example.com');
    await Promise.all([page.waitForLoadState('load'), panel().getByRole('button', { name: 'Add listmonk destination' }).click()]);
    assert.equal(await panel().getByText('Enter the name of the form’s checkbox that says the visitor wants the newsletter.').isVisible(), true);
    assert.equal(await panel().getByLabel('listmonk address').getAttribute('aria-invalid'), 'true');
    await checkPage(page, 'destinations-error-newsletter');
    await page.setViewportSize({ width: 390, height: 900 });
    await panel().screenshot({ path: path.join(SCREENSHOT_DIR, 'destinations-error-panel-390.png') });
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${app.publicUrl}/forms/${formId}/settings#destinations`);
    await panel().getByText('Add Airtable', { exact: true }).click();

    await panel().getByLabel('Base id').fill(AIRTABLE_BASE);
    await panel().getByLabel('Table').fill('Leads');
    await panel().getByLabel('Personal access token').fill(AIRTABLE_TOKEN);
    await Promise.all([
      page.waitForURL(/\/destinations\/[\w-]+#destination-settings$/),
      panel().getByRole('button', { name: 'Add Airtable destination' }).click(),
    ]);
    assert.match((await flash().textContent()) ?? '', /^Airtable destination added/);
    assert.equal((await page.content()).includes(AIRTABLE_TOKEN), false);
    assert.equal(await page.getByLabel('Personal access token').inputValue(), '');

    // the mapping: a row per field the form has seen
    const mapping = page.getByRole('region', { name: 'Field mapping' });
    await mapping.getByLabel('name goes to (Airtable field)').fill('');
    await Promise.all([page.waitForURL(/#destination-mapping$/), mapping.getByRole('button', { name: 'Save field mapping' }).click()]);
    assert.equal(await flash().textContent(), 'Field mapping saved: the next submissions are sent with it');
    assert.equal(await mapping.getByLabel('name goes to (Airtable field)').inputValue(), '');
    assert.equal(await mapping.getByLabel('email goes to (Airtable field)').inputValue(), 'email');

    // two fields under one name: refused beside the second
    await mapping.getByLabel('message goes to (Airtable field)').fill('email');
    await Promise.all([page.waitForLoadState('load'), mapping.getByRole('button', { name: 'Save field mapping' }).click()]);
    assert.equal(await mapping.getByText('“email” is already sent as “email”: give each field its own name.').isVisible(), true);
    await checkPage(page, 'destination-mapping-error');
    await mapping.getByLabel('message goes to (Airtable field)').fill('message');
    await Promise.all([page.waitForURL(/#destination-mapping$/), mapping.getByRole('button', { name: 'Save field mapping' }).click()]);

    await Promise.all([page.waitForURL(/#destination-settings$/), page.getByRole('button', { name: 'Send a test to Airtable' }).click()]);
    assert.match((await flash().textContent()) ?? '', /^Test to Airtable sent \(HTTP 200\): record rec\d+; check that it arrived$/);
    assert.deepEqual(services.requests.at(-1)?.body.records[0].fields, { email: 'ada@example.com', message: 'Hello' });
    await checkPage(page, 'destination-page');
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'destination-page-full-1280.png'), fullPage: true });

    // a Google Sheets destination shows whom to share the sheet with
    await page.goto(`${app.publicUrl}/forms/${formId}/settings#destinations`);
    await panel().getByText('Add Google Sheets', { exact: true }).click();
    await panel().getByLabel('Spreadsheet').fill(`https://docs.google.com/spreadsheets/d/${SPREADSHEET_ID}/edit`);
    await panel().getByLabel('Service account key (JSON)').fill(services.serviceAccountJson);
    await Promise.all([
      page.waitForURL(/\/destinations\/[\w-]+#destination-settings$/),
      panel().getByRole('button', { name: 'Add Google Sheets destination' }).click(),
    ]);
    assert.equal(await page.getByText(services.serviceAccountEmail).isVisible(), true);
    assert.equal((await page.content()).includes('PRIVATE KEY'), false);
    await checkPage(page, 'destination-page-sheets');

    // a submission delivered: its time in the panel
    await postJson(app, formId, { email: 'grace@example.com' }, { localAddress: '127.0.6.2' });
    await until('delivered to Airtable', async () =>
      (await app.ctx.destinations.listForMember(userId, formId)).some((d) => d.kind === 'airtable' && d.lastStatus === 'ok'),
    );
    await page.goto(`${app.publicUrl}/forms/${formId}/settings#destinations`);
    assert.match((await panel().textContent()) ?? '', /Last delivery: sent, /);
    await checkPage(page, 'destinations-set');
    await panel().screenshot({ path: path.join(SCREENSHOT_DIR, 'destinations-panel-1280.png') });
    await page.setViewportSize({ width: 390, height: 900 });
    await panel().screenshot({ path: path.join(SCREENSHOT_DIR, 'destinations-panel-390.png') });
    await page.setViewportSize({ width: 1280, height: 900 });

    await Promise.all([page.waitForURL(/#destinations$/), panel().getByRole('button', { name: 'Remove the Airtable destination' }).click()]);
    assert.equal(await flash().textContent(), 'Airtable destination removed: nothing more is sent there');
    assert.equal(await panel().getByRole('heading', { name: 'Airtable' }).count(), 0);
  });
});
