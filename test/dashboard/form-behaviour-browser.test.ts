import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { toFormResource } from '../../src/services/forms.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium, SCREENSHOT_DIR } from '../helpers/browser.js';
import { signedUpOwner } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { startPageSite, type PageSite } from '../helpers/page-site.js';

const PASSWORD = 'correct horse battery';

describe(`dashboard in Chromium: a form's behaviour and state (${TEST_DIALECT})`, { skip: needsChromium }, () => {
  let app: TestApp;
  let site: PageSite;
  let browser: Browser;
  let page: Page;
  let userId: string;
  let workspaceId: string;

  const newForm = async (name: string) => (await app.ctx.forms.createForm(userId, workspaceId, { name })).id;
  const resource = async (formId: string) => toFormResource(await app.ctx.forms.getForm(userId, formId));
  /** Saves one section of the settings page with its own button. */
  const save = (button: string, section: string) =>
    Promise.all([page.waitForURL(new RegExp(`/settings\\?saved=${section}#${section}$`)), page.getByRole('button', { name: button }).click()]);
  /** The site's page with a plain HTML form posting to the form, opened and sent. */
  const sendFromSite = async (formId: string) => {
    site.pages.set(
      '/contact',
      `<!doctype html><html lang="en"><title>Contact</title><form method="post" action="${app.submitUrl}/${formId}"><label>Email <input name="email" value="ada@example.com"></label><button>Send</button></form></html>`,
    );
    await page.goto(`${site.url}/contact`);
    await Promise.all([page.waitForURL((url) => url.href.startsWith(app.submitUrl)), page.getByRole('button', { name: 'Send' }).click()]);
  };

  before(async () => {
    app = await startApp();
    site = await startPageSite();
    browser = await launchBrowser();
    ({ page, userId, workspaceId } = await signedUpOwner(browser, app, 'owner@example.com', PASSWORD));
  });
  after(async () => {
    await browser?.close();
    await site?.close();
    await app?.close();
  });

  it('sets the thank-you wording and the emails’ wording; a bad redirect is shown beside its field and nothing is saved', async () => {
    const formId = await newForm('Contact');
    await page.goto(`${app.publicUrl}/forms/${formId}/settings`);
    await page.getByLabel('Thank-you page title').fill('Thanks, we got it');
    await page.getByLabel('Thank-you page message').fill('We answer within a day.');
    await save('Save after-submission settings', 'after-submission');
    assert.ok(await page.getByRole('status').filter({ hasText: 'After-submission settings saved.' }).isVisible());
    await page.getByLabel('Notification subject').fill('Website lead');
    await page.getByLabel('Notification sender name').fill('Acme site');
    await save('Save subjects and senders', 'email-wording');
    assert.ok(await page.getByRole('status').filter({ hasText: 'Subjects and senders saved.' }).isVisible());
    const saved = await resource(formId);
    assert.equal(saved.thanksTitle, 'Thanks, we got it');
    assert.equal(saved.notificationFromName, 'Acme site');
    await checkPage(page, 'form-behaviour-settings');

    await page.getByLabel('Redirect to').fill('example.com/thanks');
    await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Save after-submission settings' }).click(),
    ]);
    await page
      .locator('#field-redirectUrl-error')
      .filter({ hasText: /^The redirect address must be an absolute http or https URL/ })
      .waitFor();
    await page.getByLabel('Redirect to').fill('');
    await page.getByLabel('Most submissions').fill('0');
    await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Save closing time and limit' }).click(),
    ]);
    await page
      .locator('#field-maxSubmissions-error')
      .filter({ hasText: /^The limit on submissions must be a whole number of submissions from 1/ })
      .waitFor();
    assert.equal((await resource(formId)).redirectUrl, null, 'nothing saved');
    await checkPage(page, 'form-behaviour-settings-error');

    // the built-in thank-you page shows the wording, light and dark
    await sendFromSite(formId);
    assert.ok(await page.getByRole('heading', { name: 'Thanks, we got it' }).isVisible());
    await checkPage(page, 'form-behaviour-thank-you');
  });

  it('the thank-you and error pages link back to the site, and Settings says what decides the link (issue 39, item 19)', async () => {
    const formId = await newForm('Way back');
    const host = new URL(site.url).host;
    site.pages.set('/', '<!doctype html><html lang="en"><title>Home</title><h1>The site’s home</h1></html>');
    await page.goto(`${app.publicUrl}/forms/${formId}/settings`);
    const panel = page.getByRole('region', { name: 'After a submission' });
    await panel.getByText(/The built-in thank-you and error pages end with one/).waitFor();
    await panel.getByText('Now, with no allowed origins: the home page of the site each post came from; no link when the browser does not say.').waitFor();
    await panel.getByRole('link', { name: 'Allowed origins' }).click();
    await page.waitForURL(/#allowedOrigins$/);
    await checkPage(page, 'form-settings-way-back');
    await panel.screenshot({ path: path.join(SCREENSHOT_DIR, 'form-settings-way-back-panel.png') });

    await sendFromSite(formId);
    await checkPage(page, 'thank-you-way-back');
    await Promise.all([page.waitForURL(`${site.url}/`), page.getByRole('link', { name: `Go back (${host})` }).click()]);
    assert.ok(await page.getByRole('heading', { name: 'The site’s home' }).isVisible());

    // an error page too: the form paused
    await page.goto(`${app.publicUrl}/forms/${formId}/settings`);
    await Promise.all([page.waitForURL(/\/settings#form-state$/), page.getByRole('button', { name: 'Pause the form' }).click()]);
    await sendFromSite(formId);
    assert.ok(await page.getByRole('heading', { name: 'This form is closed' }).isVisible());
    await checkPage(page, 'error-way-back');
    await Promise.all([page.waitForURL(`${site.url}/`), page.getByRole('link', { name: `Back to the form (${host})` }).click()]);

    // with its site listed, Settings says so
    await app.ctx.forms.updateForm(userId, formId, { allowedOrigins: [new URL(site.url).origin] });
    await page.goto(`${app.publicUrl}/forms/${formId}/settings`);
    await panel.getByText(`Now: the page the form was on, when its site is listed; otherwise ${new URL(site.url).origin}/.`).waitFor();
  });

  it('the redirect sends the browser to the owner’s page', async () => {
    const formId = await newForm('Redirecting');
    site.pages.set('/done', '<!doctype html><html lang="en"><title>Done</title><h1>All done</h1></html>');
    await page.goto(`${app.publicUrl}/forms/${formId}/settings`);
    await page.getByLabel('Redirect to').fill(`${site.url}/done`);
    await save('Save after-submission settings', 'after-submission');
    site.pages.set(
      '/contact',
      `<!doctype html><html lang="en"><title>Contact</title><form method="post" action="${app.submitUrl}/${formId}"><label>Email <input name="email" value="ada@example.com"></label><button>Send</button></form></html>`,
    );
    await page.goto(`${site.url}/contact`);
    await Promise.all([page.waitForURL(`${site.url}/done`), page.getByRole('button', { name: 'Send' }).click()]);
    assert.ok(await page.getByRole('heading', { name: 'All done' }).isVisible());
  });

  it('pauses with a button; the badge shows; a visitor gets the closed page; Setup says why the test is off; resumes', async () => {
    const formId = await newForm('Newsletter');
    await page.goto(`${app.publicUrl}/forms/${formId}/settings`);
    await Promise.all([page.waitForURL(/\/settings#form-state$/), page.getByRole('button', { name: 'Pause the form' }).click()]);
    assert.ok(await page.getByRole('status').filter({ hasText: 'Form paused' }).isVisible());
    assert.equal((await resource(formId)).paused, true);
    assert.ok(await page.getByText('Paused', { exact: true }).first().isVisible());

    await page.goto(`${app.publicUrl}/w/${workspaceId}`);
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'Newsletter' }) });
    assert.ok(await row.getByText('Paused', { exact: true }).isVisible());
    await checkPage(page, 'form-behaviour-forms-list');

    await page.goto(`${app.publicUrl}/forms/${formId}/setup`);
    assert.equal(await page.getByRole('button', { name: 'Send a test submission' }).isDisabled(), true);
    assert.ok(await page.getByText('This form is paused').isVisible());
    await checkPage(page, 'form-behaviour-setup-paused');

    await sendFromSite(formId);
    assert.ok(await page.getByRole('heading', { name: 'This form is closed' }).isVisible());
    await checkPage(page, 'form-behaviour-closed');

    await page.goto(`${app.publicUrl}/forms/${formId}/settings`);
    await Promise.all([page.waitForURL(/\/settings#form-state$/), page.getByRole('button', { name: 'Resume the form' }).click()]);
    assert.equal((await resource(formId)).paused, false);
    await page.goto(`${app.publicUrl}/forms/${formId}/setup`);
    assert.equal(await page.getByRole('button', { name: 'Send a test submission' }).isDisabled(), false);
  });
});
