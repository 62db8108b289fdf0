import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium, newPage } from '../helpers/browser.js';
import { signUp } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const PASSWORD = 'correct horse battery';
const from = visitorAddresses(62);

/** Reloads the page until `ready` holds (the worker runs on its own), within a deadline. */
async function reloadUntil(page: Page, what: string, ready: () => Promise<boolean>, deadlineMs = 20_000): Promise<void> {
  await eventually(
    async () => {
      if (await ready()) return true;
      await page.reload();
      return false;
    },
    what,
    deadlineMs,
    250,
  );
}

describe(`dashboard in Chromium: a form's delivery log (${TEST_DIALECT})`, { skip: needsChromium }, () => {
  let app: TestApp;
  let receiver: WebhookReceiver;
  let browser: Browser;
  let page: Page;
  let formId: string;

  before(async () => {
    receiver = await startWebhookReceiver({ status: 200 });
    // the delivery worker runs, as under `formgate serve`; webhooks may reach the receiver on loopback
    app = await startApp({ allowPrivateWebhooks: 'true' }, { delivery: true });
    browser = await launchBrowser();
    page = await newPage(browser);
    await signUp(page, app, 'owner@example.com', PASSWORD);
    const user = await app.ctx.users.requireByEmail('owner@example.com');
    const [workspace] = (await app.ctx.workspaces.listForUser(user.id, { limit: 1, after: null })).rows;
    const form = await app.ctx.forms.createForm(user.id, workspace!.id, {
      name: 'Contact',
      notificationEmails: ['team@example.com'],
      webhookUrl: receiver.url,
    });
    formId = form.id;
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await receiver?.close();
  });

  it('fails a webhook, shows it Failed with the status code, and Retry delivers it', async () => {
    await page.goto(`${app.publicUrl}/forms/${formId}/deliveries`);
    assert.ok(await page.getByText('No deliveries yet.').isVisible());
    assert.equal(await page.getByRole('link', { name: 'Deliveries' }).getAttribute('aria-current'), 'page');
    await checkPage(page, 'deliveries-empty');

    // a receiver that answers 404: a permanent failure, given up at the first try (410 Gone also turns the webhook off: below)
    receiver.mode = { status: 404 };
    const gone = await postJson(app, formId, { name: 'Ada Lovelace', message: 'Hello' }, from());
    assert.equal(gone.status, 200);
    await page.reload();
    // the row of this submission's webhook (the log will hold a second one)
    const webhookRow = page
      .getByRole('row')
      .filter({ hasText: /Webhook to http:\/\/127\.0\.0\.1:\d+\/hook/ })
      .filter({ has: page.locator(`a[href="/submissions/${gone.body.id}"]`) });
    await reloadUntil(page, 'the webhook to fail', async () => (await webhookRow.getByText('Failed', { exact: true }).count()) === 1);
    assert.ok(await webhookRow.getByText('the webhook answered 404').first().isVisible(), 'the status code and error');
    // the submission named as the inbox names it: who sent it, then its first words
    assert.ok(await webhookRow.getByRole('link', { name: 'Ada Lovelace', exact: true }).isVisible());
    assert.ok(await webhookRow.getByText('Hello', { exact: true }).isVisible());
    // no SMTP server in this test: the notification is written to the outbox folder, and says so
    await reloadUntil(
      page,
      'the notification to go out',
      async () =>
        (await page.getByRole('row').filter({ hasText: 'Notification email to team@example.com' }).getByText('Written to a file', { exact: true }).count()) ===
        1,
    );

    // a second submission whose webhook the receiver refuses for now (503): waiting, with its next try
    receiver.mode = { status: 503 };
    await postJson(app, formId, { name: 'Grace Hopper', message: 'Later' }, from());
    // NOTE: between tries the row says Waiting; during one (the worker may be trying again) it says Sending
    const waiting = page.getByRole('row').filter({ hasText: 'the webhook answered 503' }).filter({ hasText: 'Waiting' }).first();
    await reloadUntil(page, 'the 503 to wait for its next try', async () => (await waiting.count()) === 1);
    assert.ok(await waiting.getByText(/^Next try/).isVisible());

    // the tries of the failed one
    await webhookRow.getByText('1 try').click();
    assert.ok(await webhookRow.getByText(/Failed for good · 404/).isVisible());
    await checkPage(page, 'deliveries-failed');

    // only the failed ones
    await Promise.all([page.waitForURL(/\/deliveries\?status=failed$/), page.getByRole('link', { name: 'Failed', exact: true }).click()]);
    assert.equal(await page.getByRole('link', { name: 'Failed', exact: true }).getAttribute('aria-current'), 'page');
    assert.equal(await page.getByRole('button', { name: /^Retry webhook/ }).count(), 1);
    assert.ok(await page.getByRole('button', { name: 'Retry all failed' }).isVisible());
    await checkPage(page, 'deliveries-filter-failed');

    // the receiver is fixed; Retry sends it again, and it is delivered
    receiver.mode = { status: 200 };
    const before = receiver.requests.filter((r) => r.headers['webhook-id'] === gone.body.id).length;
    await Promise.all([page.waitForURL(/\/deliveries\?status=failed$/), page.getByRole('button', { name: /^Retry webhook/ }).click()]);
    assert.ok(await page.getByRole('status').filter({ hasText: 'Queued again: it will be tried within a few seconds' }).isVisible());
    await page.getByRole('link', { name: 'All', exact: true }).click();
    await page.waitForURL(/\/deliveries$/);
    await reloadUntil(page, 'the retried webhook to be delivered', async () => (await webhookRow.getByText('Delivered', { exact: true }).count()) === 1);
    assert.equal(receiver.requests.filter((r) => r.headers['webhook-id'] === gone.body.id).length, before + 1, 'sent again, with the same webhook-id');
    assert.equal(await page.getByRole('button', { name: /^Retry/ }).count(), 0, 'nothing failed is left');
    // the receiver's success brings the backed-off 503 forward too (deliveries.md): everything delivered
    await reloadUntil(page, 'every delivery done', async () => (await page.getByRole('table').getByText('Waiting', { exact: true }).count()) === 0);
    await checkPage(page, 'deliveries-delivered');

    // 410 Gone turns the webhook off: the log and the Settings page say so, with the way back on (issue 39, item 2)
    receiver.mode = { status: 410 };
    await postJson(app, formId, { name: 'Hedy Lamarr', message: 'Gone' }, from());
    const off = page.getByRole('status').filter({ hasText: 'The webhook is turned off since' });
    await reloadUntil(page, 'the webhook to be turned off', async () => (await off.count()) === 1);
    assert.ok(await off.getByRole('link', { name: 'save the webhook settings' }).isVisible());
    await checkPage(page, 'deliveries-webhook-off');
    await page.goto(`${app.publicUrl}/forms/${formId}/settings`);
    assert.ok(await page.getByRole('status').filter({ hasText: 'Save notifications turns it on again' }).isVisible());
    await checkPage(page, 'settings-webhook-off');
  });

  it('shows another account the 404 page, not the log', async () => {
    await app.ctx.users.createUser('stranger@example.com', PASSWORD);
    const stranger = await newPage(browser);
    await stranger.goto(`${app.publicUrl}/login`);
    await stranger.getByLabel('Email').fill('stranger@example.com');
    await stranger.getByLabel('Password').fill(PASSWORD);
    await Promise.all([stranger.waitForURL(/\/w\/[^/]+$/), stranger.getByRole('button', { name: 'Log in' }).click()]);
    const answer = await stranger.goto(`${app.publicUrl}/forms/${formId}/deliveries`);
    assert.equal(answer?.status(), 404);
    assert.ok(await stranger.getByText('There is nothing here, or it is not yours to see.').isVisible());
    await stranger.context().close();
  });
});
