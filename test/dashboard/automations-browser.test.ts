import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium } from '../helpers/browser.js';
import { signedUpOwner } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { until } from '../helpers/eventually.js';
import { postJson } from '../helpers/submit.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const PASSWORD = 'correct horse battery';

/** Issue 42, items 1 and 2 in a browser: a key made and revoked, and the subscription it made, with how its delivery went. */
describe(`dashboard in Chromium: automations (${TEST_DIALECT})`, { skip: needsChromium }, () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let workspaceId: string;
  let formId: string;
  let receiver: WebhookReceiver;

  before(async () => {
    app = await startApp({ allowPrivateWebhooks: '1' }, { delivery: true });
    receiver = await startWebhookReceiver();
    browser = await launchBrowser();
    let userId: string;
    ({ page, userId, workspaceId } = await signedUpOwner(browser, app, 'owner@example.com', PASSWORD));
    await app.ctx.workspaces.setPlan(workspaceId, 'BUNDLE_50000', { tellOwners: false });
    formId = (await app.ctx.forms.createForm(userId, workspaceId, { name: 'Contact' })).id;
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await receiver?.close();
  });

  it('reaches the page from the workspace’s settings, and refuses a key without the password', async () => {
    await page.goto(`${app.publicUrl}/w/${workspaceId}/settings`);
    await Promise.all([page.waitForURL(/\/automations$/), page.getByRole('link', { name: 'Automations' }).click()]);
    assert.ok(await page.getByText('No platform has subscribed yet').isVisible());
    await page.getByLabel('Name').fill('Zapier');
    await page.getByLabel('Current password').fill('not my password');
    await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Make key' }).click()]);
    const error = page.locator('#field-currentPassword-error');
    assert.ok(await error.isVisible(), 'the refusal is said beside the password');
    assert.equal(await page.getByLabel('Name').inputValue(), 'Zapier', 'the name typed is kept');
    assert.equal((await app.ctx.automationKeys.list((await app.ctx.users.requireByEmail('owner@example.com')).id, workspaceId)).length, 0);
    await checkPage(page, 'automations-empty');
  });

  it('makes a key, shown once; a platform subscribes with it and the page shows the delivery; revoking it removes the subscription', async () => {
    await page.getByLabel('Current password').fill(PASSWORD);
    await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Make key' }).click()]);
    assert.ok(await page.getByRole('heading', { name: 'Your new key “Zapier”' }).isVisible());
    const key = (await page.locator('#new-token').innerText()).trim();
    assert.match(key, /^fgak_/);
    await checkPage(page, 'automation-key');

    const hook = await app.api('POST', '/hooks', { token: key, body: { targetUrl: receiver.url, event: 'submission.created', formId } });
    assert.equal(hook.status, 201);
    assert.equal((await postJson(app, formId, { name: 'Ada', message: 'Hello' })).status, 200);
    await until('the subscription’s delivery', () => receiver.requests.length === 1);
    await until('the delivery noted', async () => (await app.ctx.database.db.selectFrom('hooks').select('lastStatus').executeTakeFirst())?.lastStatus === 'ok');

    await page.getByRole('link', { name: '← Back to automations' }).click();
    const subscriptions = page.getByRole('table', { name: 'Subscriptions' });
    const row = (await subscriptions.getByRole('row').nth(1).innerText()).replace(/\s+/g, ' ');
    assert.match(row, /New submission/);
    assert.match(row, /Contact/);
    assert.ok(row.includes(receiver.url));
    assert.match(row, /Zapier/);
    assert.match(row, /Delivered/);
    const keys = page.getByRole('table', { name: 'Automation-tool keys' });
    assert.match((await keys.getByRole('row').nth(1).innerText()).replace(/\s+/g, ' '), /Zapier.*owner@example\.com.*Active/);
    await checkPage(page, 'automations');

    await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Revoke key “Zapier”' }).click()]);
    assert.ok(await page.getByText('Key “Zapier” revoked; its subscription was removed').isVisible());
    assert.ok(await page.getByText('No platform has subscribed yet').isVisible());
    assert.equal((await app.api('GET', '/me', { token: key })).status, 401);
  });
});
