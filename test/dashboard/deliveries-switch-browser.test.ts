import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium, newPage } from '../helpers/browser.js';
import { logIn, signUp } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';

const PASSWORD = 'correct horse battery';
const ADMIN = 'admin@example.com';
const from = visitorAddresses(65);

const section = (page: Page) => page.getByRole('region', { name: 'Deliveries', exact: true });
const banner = (page: Page) => page.getByRole('region', { name: 'Deliveries are paused.' });

describe(`dashboard in Chromium: the admin's deliveries switch (${TEST_DIALECT})`, { skip: needsChromium }, () => {
  let browser: Browser;
  let app: TestApp;
  let sink: SmtpSink;
  let page: Page;
  let formId: string;
  let workspaceId: string;

  before(async () => {
    browser = await launchBrowser();
    sink = await startSmtpSink();
    app = await startApp({ smtpUrl: sink.url }, { delivery: true });
    page = await newPage(browser);
    await signUp(page, app, ADMIN, PASSWORD);
    const user = await app.ctx.users.requireByEmail(ADMIN);
    workspaceId = (await app.ctx.workspaces.listForUser(user.id, { limit: 1, after: null })).rows[0]!.id;
    formId = (await app.ctx.forms.createForm(user.id, workspaceId, { name: 'Contact', notificationEmails: ['team@example.com'] })).id;
  });
  after(async () => {
    await page?.context().close();
    await browser?.close();
    await app?.close();
    await sink?.close();
  });

  it('pauses every delivery with a button that explains what it holds, says so on every page, and resumes', async () => {
    await page.goto(`${app.publicUrl}/admin`);
    assert.ok(await section(page).getByText('Running: emails, webhooks and Slack messages are sent.').isVisible());
    assert.ok(
      await section(page)
        .getByText(/account emails too: password resets, invitations, sign-up links/)
        .isVisible(),
      'what a pause holds',
    );
    assert.equal(await banner(page).count(), 0);

    await Promise.all([page.waitForURL(/\/admin#deliveries$/), section(page).getByRole('button', { name: 'Pause deliveries' }).click()]);
    assert.ok(await page.getByRole('status').getByText('Deliveries are paused: 0 waiting.').isVisible(), 'the flash');
    assert.ok(await section(page).getByText(`Paused by ${ADMIN} at `).isVisible());
    assert.equal(await app.ctx.deliverySwitch.paused(), true);

    // a submission is taken; its notification waits, and the page counts it
    const received = sink.messages.length;
    assert.equal((await postJson(app, formId, { name: 'Ada', message: 'Hello' }, from())).status, 200);
    await page.reload();
    assert.ok(await section(page).getByText('1 delivery is waiting to be sent.').isVisible());
    await checkPage(page, 'deliveries-switch-paused');

    // the banner on the other pages, leading back to the switch
    await page.goto(`${app.publicUrl}/w/${workspaceId}`);
    assert.ok(await banner(page).isVisible(), 'the banner on the workspace page');
    assert.ok(await banner(page).getByText(`paused by ${ADMIN}`, { exact: false }).isVisible());
    await checkPage(page, 'deliveries-paused-banner');
    await Promise.all([page.waitForURL(/\/admin#deliveries$/), banner(page).getByRole('link', { name: 'Deliveries switch' }).click()]);
    assert.equal(sink.messages.length, received, 'nothing sent while paused');

    await Promise.all([page.waitForURL(/\/admin#deliveries$/), section(page).getByRole('button', { name: 'Resume deliveries' }).click()]);
    assert.ok(await page.getByRole('status').getByText('Deliveries resumed: what waited is being sent.').isVisible());
    assert.equal(await banner(page).count(), 0);
    await sink.waitFor(received + 1);
    await checkPage(page, 'deliveries-switch-running');
  });

  it('is the instance admin’s alone, and checks CSRF', async () => {
    // without the page's CSRF token, even the admin's own session is refused
    const forged = await page.request.post(`${app.publicUrl}/admin/deliveries`, { form: { deliveries: 'paused' }, maxRedirects: 0 });
    assert.notEqual(forged.status(), 303);
    assert.equal(await app.ctx.deliverySwitch.paused(), false);

    await app.ctx.users.createUser('member@example.com', PASSWORD);
    await app.ctx.workspaces.addMember(workspaceId, 'member@example.com');
    await app.ctx.deliveryPause.pause(ADMIN);
    const member = await newPage(browser);
    try {
      await logIn(member, app, 'member@example.com', PASSWORD);
      await member.goto(`${app.publicUrl}/w/${workspaceId}`);
      assert.equal(await banner(member).count(), 0, 'no banner for a member');
      assert.equal((await member.goto(`${app.publicUrl}/admin`))?.status(), 404);
      // with a valid CSRF token of the member's own session: refused as the page is, 404
      await member.goto(`${app.publicUrl}/account`);
      const csrf = (await member.locator('input[name="_csrf"]').first().getAttribute('value'))!;
      const posted = await member.request.post(`${app.publicUrl}/admin/deliveries`, { form: { deliveries: 'on', _csrf: csrf }, maxRedirects: 0 });
      assert.equal(posted.status(), 404);
      assert.equal(await app.ctx.deliverySwitch.paused(), true, 'a member cannot resume');
    } finally {
      await member.context().close();
      await app.ctx.deliveryPause.resume();
    }
  });
});
