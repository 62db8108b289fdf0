import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium, newPage } from '../helpers/browser.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { signUp } from '../helpers/dashboard.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';

describe(`dashboard in Chromium: the spam digest's settings and its Not spam page (${TEST_DIALECT})`, { skip: needsChromium }, () => {
  let app: TestApp;
  let browser: Browser;
  let owner: Page;
  let userId: string;
  let workspaceId: string;

  before(async () => {
    app = await startApp();
    browser = await launchBrowser();
    owner = await newPage(browser);
    await signUp(owner, app, 'digest@example.com', 'owner password 1');
    userId = (await app.ctx.users.requireByEmail('digest@example.com')).id;
    workspaceId = new URL(owner.url()).pathname.split('/')[2]!;
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  it('the settings are chosen from the keyboard and kept', async () => {
    await owner.goto(`${app.publicUrl}/w/${workspaceId}/settings`);
    await owner.getByLabel('How often').selectOption('weekly');
    await owner.getByLabel('Send the digest to me').uncheck();
    await Promise.all([owner.waitForURL(/#spam-digest$/), owner.getByRole('button', { name: 'Save spam digest' }).press('Enter')]);
    await owner.getByRole('status').filter({ hasText: 'Spam digest saved: weekly, not sent to you' }).waitFor();
    assert.equal(await owner.getByLabel('How often').inputValue(), 'weekly');
    assert.equal(await owner.getByLabel('Send the digest to me').isChecked(), false);
    await checkPage(owner, 'spam-digest-settings');
  });

  it('the link’s page shows the submission, and its button moves it to the inbox', async () => {
    const form = await app.ctx.forms.createForm(userId, workspaceId, { name: 'Contact' });
    const message = 'Could you quote for 40 chairs? A rather long first line that goes on to show how the page wraps it at phone width <script>';
    const answer = await postJson(app, form.id, { name: 'Dana', email: 'dana@example.com', message }, visitorAddresses(73)());
    const submissionId = answer.body.id as string;
    // a stranger's browser: no login
    const visitor = await newPage(browser);
    await visitor.goto(app.ctx.notSpamLinks.url(submissionId, userId));
    await visitor.getByRole('heading', { name: 'Is this submission spam?' }).waitFor();
    await visitor.getByText('Dana <dana@example.com>').waitFor();
    await checkPage(visitor, 'not-spam-link');
    await Promise.all([visitor.waitForLoadState('load'), visitor.getByRole('button', { name: 'Not spam: move it to the inbox' }).click()]);
    await visitor.getByRole('status').filter({ hasText: 'Moved to the inbox' }).waitFor();
    await visitor.getByRole('heading', { name: 'This submission is in the inbox' }).waitFor();
    await checkPage(visitor, 'not-spam-link-done');
  });
});
