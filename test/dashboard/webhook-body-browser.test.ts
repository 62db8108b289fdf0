import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium } from '../helpers/browser.js';
import { signedUpOwner } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const OWNER = 'owner@example.com';
const PASSWORD = 'correct horse battery';

describe(`dashboard in Chromium: a form's webhook body (${TEST_DIALECT})`, { skip: needsChromium }, () => {
  let app: TestApp;
  let receiver: WebhookReceiver;
  let browser: Browser;
  let page: Page;
  let userId: string;
  let workspaceId: string;

  before(async () => {
    receiver = await startWebhookReceiver({ status: 200 });
    app = await startApp({ allowPrivateWebhooks: 'true' });
    browser = await launchBrowser();
    ({ page, userId, workspaceId } = await signedUpOwner(browser, app, OWNER, PASSWORD));
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await receiver?.close();
  });

  const panel = () => page.getByRole('region', { name: 'Webhook body' });
  const preview = (p: Page = page) => p.frameLocator('iframe[title="Preview of the webhook body"]');

  it('chooses a format, refuses a template that makes no JSON beside the field, previews as you type, saves, and tests with it', async () => {
    const formId = (await app.ctx.forms.createForm(userId, workspaceId, { name: 'Leads', webhookUrl: receiver.url })).id;
    await page.goto(`${app.publicUrl}/forms/${formId}/settings`);
    assert.equal(await panel().getByLabel('JSON of every field (the default)').isChecked(), true);
    await preview().getByText('"name":"Jane Doe"', { exact: false }).waitFor();
    await checkPage(page, 'webhook-body');

    // refused: not JSON with the sample data; the message beside the field, nothing stored
    await panel().getByLabel('JSON written with a template').check();
    await panel().getByLabel('Body template').fill('{"text": "From {{data.name}}",}');
    await Promise.all([page.waitForLoadState('load'), panel().getByRole('button', { name: 'Save webhook body' }).click()]);
    assert.equal(await panel().getByLabel('Body template').getAttribute('aria-invalid'), 'true');
    assert.match(
      (await panel()
        .getByText(/^The webhook body template: the body is not valid JSON/)
        .textContent()) ?? '',
      /with the sample data/,
    );
    assert.equal(await panel().getByLabel('JSON written with a template').isChecked(), true, 'the choice is shown as posted');
    assert.equal((await app.ctx.webhookBodies.getForMember(userId, formId)).format, 'json');
    await checkPage(page, 'webhook-body-error');

    // the preview follows the typing
    await panel().getByLabel('Body template').fill('{"text": "From {{data.name}}", "email": {{data.email}}}');
    await preview().getByText('{"text": "From Jane Doe", "email": "jane@example.com"}').waitFor();
    await Promise.all([page.waitForURL(/#webhook-body$/), panel().getByRole('button', { name: 'Save webhook body' }).click()]);
    assert.equal(await page.getByRole('status').first().textContent(), 'Webhook body saved: each webhook is made with your template');
    assert.equal(await panel().getByLabel('JSON written with a template').isChecked(), true);
    await checkPage(page, 'webhook-body-saved');

    await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Send a test webhook' }).click()]);
    const request = await eventually(async () => receiver.requests.at(-1), 'the test webhook');
    assert.equal(request.rawBody, '{"text": "From Jane Doe", "email": "jane@example.com"}');
    assert.equal(request.headers['content-type'], 'application/json');
  });

  it('works without JavaScript: Preview posts the form to the frame, Save saves', async () => {
    const formId = (await app.ctx.forms.createForm(userId, workspaceId, { name: 'Plain', webhookUrl: receiver.url })).id;
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, javaScriptEnabled: false });
    const plain = await context.newPage();
    await plain.goto(`${app.publicUrl}/login`);
    await plain.getByLabel('Email').fill(OWNER);
    await plain.getByLabel('Password').fill(PASSWORD);
    await Promise.all([plain.waitForURL(/\/w\//), plain.getByRole('button', { name: 'Log in' }).click()]);
    await plain.goto(`${app.publicUrl}/forms/${formId}/settings`);
    const plainPanel = plain.getByRole('region', { name: 'Webhook body' });
    await plainPanel.getByLabel('Form fields written with a template').check();
    await plainPanel.getByLabel('Body template').fill('entry.1={{data.name}}\nentry.2={{data.message}}');
    await plainPanel.getByRole('button', { name: 'Preview' }).click();
    await preview(plain).getByText('entry.1=Jane+Doe&entry.2=Hello%21+I+would+like', { exact: false }).waitFor();
    await preview(plain).getByText('application/x-www-form-urlencoded').waitFor();
    assert.equal(new URL(plain.url()).pathname, `/forms/${formId}/settings`, 'the page stays; the frame changes');
    await Promise.all([plain.waitForURL(/#webhook-body$/), plainPanel.getByRole('button', { name: 'Save webhook body' }).click()]);
    assert.deepEqual(await app.ctx.webhookBodies.getForMember(userId, formId), {
      format: 'urlencoded-template',
      template: 'entry.1={{data.name}}\nentry.2={{data.message}}',
      storedTemplate: 'entry.1={{data.name}}\nentry.2={{data.message}}',
    });
    await context.close();
  });
});
