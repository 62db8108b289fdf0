import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium, SCREENSHOT_DIR } from '../helpers/browser.js';
import { startChatStandIn, TELEGRAM_TOKEN, type ChatStandIn } from '../helpers/chat-stand-in.js';
import { signedUpOwner } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const PASSWORD = 'correct horse battery';

describe(`dashboard in Chromium: a form's chat channels (${TEST_DIALECT})`, { skip: needsChromium }, () => {
  let app: TestApp;
  let chat: ChatStandIn;
  let receiver: WebhookReceiver;
  let browser: Browser;
  let page: Page;
  let userId: string;
  let workspaceId: string;

  before(async () => {
    chat = await startChatStandIn();
    receiver = await startWebhookReceiver({ status: 200 });
    app = await startApp({ telegramApiUrl: chat.telegramApiUrl, allowPrivateWebhooks: 'true' });
    browser = await launchBrowser();
    ({ page, userId, workspaceId } = await signedUpOwner(browser, app, 'owner@example.com', PASSWORD));
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await chat?.close();
    await receiver?.close();
  });

  const panel = () => page.getByRole('region', { name: 'Chat channels' });
  const section = (name: string) => panel().getByRole('region', { name, exact: true });
  const flash = () => page.getByRole('status').first();

  it('adds, tests, changes and removes channels, and tests the webhook, without script', async () => {
    const formId = (await app.ctx.forms.createForm(userId, workspaceId, { name: 'Leads', webhookUrl: receiver.url })).id;
    await page.goto(`${app.publicUrl}/forms/${formId}/settings`);
    await checkPage(page, 'chat-channels-empty');

    // a refused address: the message beside the field, nothing stored
    await section('Discord').getByLabel('URL of the Discord webhook').fill('discord webhook please');
    await Promise.all([page.waitForLoadState('load'), section('Discord').getByRole('button', { name: 'Add Discord channel' }).click()]);
    assert.equal(await section('Discord').getByText('Enter the whole URL, starting with https://.').isVisible(), true);
    assert.equal(await section('Discord').getByLabel('URL of the Discord webhook').getAttribute('aria-invalid'), 'true');
    await checkPage(page, 'chat-channels-error');

    await section('Discord').getByLabel('URL of the Discord webhook').fill(chat.discordUrl);
    await Promise.all([page.waitForURL(/#chat-discord$/), section('Discord').getByRole('button', { name: 'Add Discord channel' }).click()]);
    assert.equal(await flash().textContent(), 'Discord channel saved: each submission is posted there');
    await section('Telegram').getByLabel('Telegram bot token').fill(TELEGRAM_TOKEN);
    await section('Telegram').getByLabel('Telegram chat id').fill('-1001234567890');
    await Promise.all([page.waitForURL(/#chat-telegram$/), section('Telegram').getByRole('button', { name: 'Add Telegram channel' }).click()]);
    assert.match((await section('Telegram').textContent()) ?? '', new RegExp(`with the bot token …${TELEGRAM_TOKEN.slice(-4)} to chat -1001234567890`));
    assert.equal((await page.content()).includes(TELEGRAM_TOKEN), false);
    assert.equal((await page.content()).includes('discordsecretXYZ2'), false);

    // a test message, answered at once
    const before = chat.posts.length;
    await Promise.all([page.waitForURL(/#chat-discord$/), section('Discord').getByRole('button', { name: 'Send a test message to Discord' }).click()]);
    assert.equal(await flash().textContent(), 'Test message to Discord sent (HTTP 204): check that it arrived');
    assert.equal(chat.posts.length, before + 1);
    chat.next.push({ status: 403, body: '{"ok":false,"error_code":403,"description":"Forbidden: bot was kicked from the group chat"}' });
    await Promise.all([page.waitForURL(/#chat-telegram$/), section('Telegram').getByRole('button', { name: 'Send a test message to Telegram' }).click()]);
    assert.equal(
      await flash().textContent(),
      'Test message to Telegram not sent: Telegram refused the message (403): Forbidden: bot was kicked from the group chat',
    );
    await checkPage(page, 'chat-channels-set');
    // the panel alone, to look at closely
    await panel().screenshot({ path: path.join(SCREENSHOT_DIR, 'chat-channels-panel-1280.png') });
    await page.setViewportSize({ width: 390, height: 900 });
    await panel().screenshot({ path: path.join(SCREENSHOT_DIR, 'chat-channels-panel-390.png') });
    await page.setViewportSize({ width: 1280, height: 900 });

    await Promise.all([page.waitForURL(/#webhook-test$/), section('Webhook').getByRole('button', { name: 'Send a test webhook' }).click()]);
    assert.equal(await flash().textContent(), 'Test webhook sent: check that it arrived');
    assert.equal(JSON.parse(receiver.requests.at(-1)!.rawBody).test, true);

    await Promise.all([page.waitForURL(/#chat-channels$/), section('Discord').getByRole('button', { name: 'Remove the Discord channel' }).click()]);
    assert.equal(await flash().textContent(), 'Discord channel removed');
    assert.equal(await section('Discord').getByText('Not set up.').isVisible(), true);
  });
});
