import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium, newPage } from '../helpers/browser.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { signUp } from '../helpers/dashboard.js';
import { eventually } from '../helpers/eventually.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';

describe(`dashboard in Chromium: a notification address confirms, then declines (${TEST_DIALECT})`, { skip: needsChromium }, () => {
  let sink: SmtpSink;
  let app: TestApp;
  let browser: Browser;
  let owner: Page;
  let formId: string;

  before(async () => {
    sink = await startSmtpSink();
    app = await startApp({ smtpUrl: sink.url, confirmRecipients: 'on' }, { delivery: true });
    browser = await launchBrowser();
    owner = await newPage(browser);
    await signUp(owner, app, 'owner@example.com', 'owner password 1');
    const userId = (await app.ctx.users.requireByEmail('owner@example.com')).id;
    const workspaceId = new URL(owner.url()).pathname.split('/')[2]!;
    formId = (await app.ctx.forms.createForm(userId, workspaceId, { name: 'Contact' })).id;
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await sink?.close();
  });

  it('the owner adds an address and sees it waiting; its owner confirms from the emailed link, then stops them; the settings page follows', async () => {
    await owner.goto(`${app.publicUrl}/forms/${formId}/settings`);
    await owner.getByLabel('New address').fill('owner@example.com');
    await Promise.all([owner.waitForURL(/#notificationEmails$/), owner.getByRole('button', { name: 'Add address' }).click()]);
    await owner.getByLabel('New address').fill('client@example.net');
    await Promise.all([owner.waitForURL(/\?saved=notifications#notifications$/), owner.getByRole('button', { name: 'Save notifications' }).click()]);
    await owner.getByRole('status').filter({ hasText: 'Notifications saved.' }).waitFor();
    await owner.getByText('Member of this workspace: receives notifications.').waitFor();
    await owner.getByText(/^Waiting for confirmation: link sent .*Receives no notifications until it confirms\.$/).waitFor();
    // the status is the address's description: a screen reader hears it with the input
    const described = await owner.getByLabel('Address 2').getAttribute('aria-describedby');
    assert.match(described ?? '', /field-notificationEmails-1-status/);
    await owner.getByRole('button', { name: 'Send link again to client@example.net' }).waitFor();
    await checkPage(owner, 'recipients-settings-waiting');

    const mail = await eventually(async () => sink.messages.find((m) => m.envelopeTo.includes('client@example.net')), 'the confirmation email');
    assert.equal(mail.parsed.subject, 'Do you want form notifications from a workspace on Formgate?');
    const link = /(http:\/\/\S+\/recipients\/[A-Za-z0-9_-]{43})/.exec(mail.parsed.text ?? '')![1]!;

    const client = await newPage(browser);
    await client.goto(link);
    await client.getByRole('heading', { name: 'Do you want these form notifications?' }).waitFor();
    await client.getByText('Contact', { exact: true }).waitFor();
    await checkPage(client, 'recipients-pending');
    // from the keyboard: the first button is the yes
    await client.keyboard.press('Tab');
    const yes = client.getByRole('button', { name: 'Yes, send me these notifications' });
    await yes.focus();
    await Promise.all([client.waitForURL(link), client.keyboard.press('Enter')]);
    await client.getByRole('status').filter({ hasText: 'Confirmed: you will receive these notifications' }).waitFor();
    await client.getByRole('heading', { name: 'You receive these form notifications' }).waitFor();
    await checkPage(client, 'recipients-confirmed');

    await owner.reload();
    await owner.getByText('Confirmed: receives notifications.').waitFor();
    assert.equal(await owner.getByRole('button', { name: /^Send link/ }).count(), 0);

    await Promise.all([client.waitForURL(link), client.getByRole('button', { name: 'Stop these notifications' }).click()]);
    await client.getByRole('heading', { name: 'You declined these form notifications' }).waitFor();
    await client.getByRole('button', { name: 'Receive them after all' }).waitFor();
    await checkPage(client, 'recipients-declined');

    await owner.reload();
    await owner.getByText('Declined: receives no notifications.').waitFor();
    await checkPage(owner, 'recipients-settings-declined');
  });
});
