import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, FrameLocator, Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium, newPage, SCREENSHOT_DIR } from '../helpers/browser.js';
import { signUp } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { until } from '../helpers/eventually.js';
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js';
import { post } from '../helpers/submit.js';

const PASSWORD = 'correct horse battery';
const OWNER = 'owner@example.com';

/** The email inside the preview: the preview's document frames it once more. */
function emailFrame(page: Page): FrameLocator {
  return page.frameLocator('iframe[title="Preview of the email"]').frameLocator('iframe[title="The email"]');
}

/**
 * In checkPage's full-page screenshots the preview's frames come out blank (a full-page capture
 * resizes the page, and headless Chromium has not painted the frames again when it is taken):
 * these show the preview itself, in the viewport, once the picture stops changing.
 */
async function previewScreenshots(page: Page, name: string): Promise<void> {
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    // the viewport only: a full-page screenshot resizes the page again, and the frames with it
    await page.getByRole('heading', { name: 'Preview' }).scrollIntoViewIfNeeded();
    let previous = await page.screenshot();
    for (let tries = 0; tries < 20; tries++) {
      const next = await page.screenshot();
      if (next.equals(previous)) break;
      previous = next;
    }
    fs.writeFileSync(path.join(SCREENSHOT_DIR, `${name}-with-preview-${width}.png`), previous);
  }
}

describe(`dashboard in Chromium: templates (${TEST_DIALECT})`, { skip: needsChromium }, () => {
  let app: TestApp;
  let sink: SmtpSink;
  let browser: Browser;
  let page: Page;
  let formId: string;

  before(async () => {
    sink = await startSmtpSink();
    app = await startApp({ smtpUrl: sink.url }, { delivery: true });
    browser = await launchBrowser();
    page = await newPage(browser);
    await signUp(page, app, OWNER, PASSWORD);
    const { id: userId } = await app.ctx.users.requireByEmail(OWNER);
    const workspaceId = new URL(page.url()).pathname.split('/').pop()!;
    await app.ctx.workspaces.setPlan(workspaceId, 'BUNDLE_50000', { tellOwners: false });
    formId = (await app.ctx.forms.createForm(userId, workspaceId, { name: 'Contact', notificationEmails: ['team@example.com'] })).id;
    const sent = await post(app, formId, { 'first name': 'Ada', email: 'ada@example.com', message: 'Do you ship to Lisbon?' });
    assert.equal(sent.status, 303);
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await sink?.close();
  });

  it('edits the notification, sees the preview change as it is typed, inserts a placeholder from the keyboard, saves, and sends the test', async () => {
    await page.goto(`${app.publicUrl}/forms/${formId}/templates`);
    assert.ok(await page.getByText('Default layout', { exact: true }).isVisible());
    assert.ok(await page.getByText('Off', { exact: true }).isVisible());
    await checkPage(page, 'templates');

    await page.getByRole('link', { name: 'Customise the notification' }).click();
    await page.getByRole('heading', { name: 'Notification template' }).waitFor();
    // the stored state: no template, so the preview is the default layout with the latest submission
    await emailFrame(page).getByText('New submission to Contact').waitFor();
    assert.ok(await emailFrame(page).getByText('Do you ship to Lisbon?').isVisible());
    const preview = page.frameLocator('iframe[title="Preview of the email"]');
    assert.ok(await preview.getByText('New submission: Contact').isVisible(), 'the subject');
    await checkPage(page, 'template-editor-notification');
    await previewScreenshots(page, 'template-editor-notification');

    const code = page.getByLabel('Template code');
    await code.fill('<h1 style="color:#1f3a93">Hello from the editor</h1>\n<p>From: ');
    // the preview follows the typing (posted to the frame 400 ms after the last change)
    await emailFrame(page).getByText('Hello from the editor').waitFor();
    assert.ok(await preview.getByText('Unsaved changes, filled in with the latest submission').isVisible());

    // the cursor at the end, then Tab to the first Insert button and Enter: the placeholder is typed there
    await code.press('End');
    await code.press('Control+End');
    await page.keyboard.press('Tab');
    const insert = page.getByRole('button', { name: 'Insert {{data.[first name]}}' });
    assert.ok(await insert.evaluate((element) => element === document.activeElement), 'Tab reaches the first Insert button');
    await page.keyboard.press('Enter');
    assert.equal(await code.inputValue(), '<h1 style="color:#1f3a93">Hello from the editor</h1>\n<p>From: {{data.[first name]}}');
    assert.ok(await code.evaluate((element) => element === document.activeElement), 'the cursor is back in the code');
    await page.keyboard.type('</p>');
    await emailFrame(page).getByText('From: Ada').waitFor();
    await preview.getByText('Plain-text alternative').click();
    await preview.getByText(/Hello from the editor\s+From: Ada/).waitFor();

    // a mistake: the preview says where, and saving keeps the stored template
    await code.fill('<p>\n{{#if data.email}}\nThanks');
    await preview.getByText('Line 3: A block is not closed').waitFor();
    await checkPage(page, 'template-editor-preview-error');
    await previewScreenshots(page, 'template-editor-preview-error');
    await Promise.all([page.waitForURL(/\/templates\/notification$/), page.getByRole('button', { name: 'Save template' }).click()]);
    assert.ok(await page.getByRole('alert').getByText('Not saved: the template has a problem.').isVisible());
    const line = page.getByRole('link', { name: 'Line 3' });
    assert.ok(await line.isVisible());
    await checkPage(page, 'template-editor-errors');
    await line.click();
    assert.ok(await code.evaluate((element) => element === document.activeElement), 'the error’s link leads to the code');

    await code.fill('<h1 style="color:#1f3a93">Hello from the editor</h1>\n<p>From: {{data.[first name]}}</p>');
    await Promise.all([page.waitForURL(/\/templates\/notification$/), page.getByRole('button', { name: 'Save template' }).click()]);
    assert.ok(await page.getByRole('status').filter({ hasText: 'Notification template saved' }).isVisible());
    await emailFrame(page).getByText('From: Ada').waitFor();
    assert.ok(await preview.getByText('The saved template, filled in').isVisible());

    const before = sink.messages.length;
    await Promise.all([page.waitForURL(/\/templates\/notification$/), page.getByRole('button', { name: 'Send me a test' }).click()]);
    assert.ok(
      await page
        .getByRole('status')
        .filter({ hasText: `A test is on its way to ${OWNER}` })
        .isVisible(),
    );
    await until('the test arrives', () => sink.messages.slice(before).some((m) => m.envelopeTo.includes(OWNER)));
    const test = sink.messages.slice(before).find((m) => m.envelopeTo.includes(OWNER))!;
    assert.deepEqual(test.envelopeTo, [OWNER]);
    assert.equal(test.parsed.subject, '[Test] New submission: Contact');
    assert.match(String(test.parsed.html), /Hello from the editor<\/h1>\n<p>From: Ada<\/p>/);
    assert.match(test.parsed.text ?? '', /From: Ada/);
    await checkPage(page, 'template-editor-saved');
    await previewScreenshots(page, 'template-editor-saved');
  });

  it('shows a paused autoresponder with its reasons, and deletes it after a confirmation', async () => {
    await page.goto(`${app.publicUrl}/forms/${formId}/templates/autoresponder`);
    await emailFrame(page).getByText('Thank you for writing to us.', { exact: false }).waitFor();
    assert.ok(await page.getByText('Save the autoresponder first').isVisible());
    await checkPage(page, 'template-editor-autoresponder');
    await page.getByLabel('Template code').fill('<p>BUY NOW AND SAVE: a limited time discount!!! Visit https://shop.example.com</p>');
    await Promise.all([page.waitForURL(/\/templates\/autoresponder$/), page.getByRole('button', { name: 'Save template' }).click()]);
    const paused = page.getByRole('status').filter({ hasText: 'Saved, but paused by the content check' });
    assert.ok(await paused.isVisible());
    // amber, as a warning is: not the green of a change that did what was asked
    assert.equal(await paused.evaluate((el) => getComputedStyle(el).color), 'rgb(122, 67, 0)');
    assert.ok(await page.getByText('1 bare link(s)').isVisible());
    assert.ok(await page.getByText(/^marketing phrasing: /).isVisible());
    await checkPage(page, 'template-editor-paused');
    await page.getByRole('link', { name: 'Templates', exact: true }).click();
    assert.ok(await page.getByText('Paused', { exact: true }).isVisible());
    await checkPage(page, 'templates-paused');

    await page.getByRole('link', { name: 'Edit the autoresponder' }).click();
    await page.getByRole('link', { name: 'Delete template' }).click();
    assert.ok(await page.getByText('The autoresponder is turned off').isVisible());
    await checkPage(page, 'template-delete');
    await Promise.all([page.waitForURL(/\/templates$/), page.getByRole('button', { name: 'Delete template' }).click()]);
    assert.ok(await page.getByRole('status').filter({ hasText: 'Autoresponder deleted: it is off' }).isVisible());
    assert.equal(
      await app.ctx.database.db.selectFrom('templates').select('kind').where('formId', '=', formId).where('kind', '=', 'autoresponder').executeTakeFirst(),
      undefined,
    );
  });

  it('works without JavaScript: the placeholders are text, and Refresh preview posts the code to the frame', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, javaScriptEnabled: false });
    const plain = await context.newPage();
    await plain.goto(`${app.publicUrl}/login`);
    await plain.getByLabel('Email').fill(OWNER);
    await plain.getByLabel('Password').fill(PASSWORD);
    await Promise.all([plain.waitForURL(/\/w\//), plain.getByRole('button', { name: 'Log in' }).click()]);
    await plain.goto(`${app.publicUrl}/forms/${formId}/templates/notification`);
    assert.equal(await plain.getByRole('button', { name: /^Insert/ }).count(), 0, 'no Insert buttons without the script');
    assert.ok(
      await plain
        .getByRole('code')
        .filter({ hasText: /^\{\{data\.email\}\}$/ })
        .isVisible(),
    );
    await plain.getByLabel('Template code').fill('<p>Without script: {{data.email}}</p>');
    await plain.getByRole('button', { name: 'Refresh preview' }).click();
    await emailFrame(plain).getByText('Without script: ada@example.com').waitFor();
    assert.equal(new URL(plain.url()).pathname, `/forms/${formId}/templates/notification`, 'the page stays; the frame changes');
    await context.close();
  });
});
