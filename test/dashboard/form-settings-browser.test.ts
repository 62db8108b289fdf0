import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { toFormResource } from '../../src/services/forms.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium } from '../helpers/browser.js';
import { CAPTCHA_SECRET, CAPTCHA_TOKEN, startCaptchaProvider, type CaptchaProvider } from '../helpers/captcha-provider.js';
import { signedUpOwner } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { JSON_ACCEPT, post as submit, postJson } from '../helpers/submit.js';

const PASSWORD = 'correct horse battery';

describe(`dashboard in Chromium: a form's settings (${TEST_DIALECT})`, { skip: needsChromium }, () => {
  let app: TestApp;
  let provider: CaptchaProvider;
  let browser: Browser;
  let page: Page;
  let userId: string;
  let workspaceId: string;

  const newForm = async (name: string) => (await app.ctx.forms.createForm(userId, workspaceId, { name })).id;
  const resource = async (formId: string) => toFormResource(await app.ctx.forms.getForm(userId, formId));
  /** Saves one section with its own button: the page comes back at that section, saying so in it. */
  const save = (button: string, section: string) =>
    Promise.all([page.waitForURL(new RegExp(`/settings\\?saved=${section}#${section}$`)), page.getByRole('button', { name: button }).click()]);
  const refusedBy = (button: string) =>
    Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.getByRole('button', { name: button }).click()]);

  before(async () => {
    provider = await startCaptchaProvider();
    app = await startApp(provider.env);
    browser = await launchBrowser();
    ({ page, userId, workspaceId } = await signedUpOwner(browser, app, 'owner@example.com', PASSWORD, { permissions: ['clipboard-read', 'clipboard-write'] }));
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await provider?.close();
  });

  it('saves each section on its own, shows a refusal beside the field in plain words, linked from the top, and changes nothing then', async () => {
    const formId = await newForm('Contact');
    await page.goto(`${app.publicUrl}/forms/${formId}/settings`);
    assert.equal(await page.getByRole('link', { name: 'Settings', exact: true }).last().getAttribute('aria-current'), 'page');
    await checkPage(page, 'form-settings');

    await page.getByLabel('Name', { exact: true }).fill('Contact us');
    await page.getByLabel('Description').fill('On the contact page');
    await page.getByLabel('Technology').fill('Astro');
    // typed in another section and not saved: a section's save carries only its own fields
    await page.getByLabel('Slack channel').fill('#typed-elsewhere');
    await save('Save general settings', 'general');
    assert.ok(await page.getByRole('region', { name: 'General' }).getByRole('status').filter({ hasText: 'General settings saved.' }).isVisible());
    let saved = await resource(formId);
    assert.equal(saved.name, 'Contact us');
    assert.equal(saved.description, 'On the contact page');
    assert.equal(saved.technology, 'Astro');
    assert.equal(saved.slackChannel, null, 'another section’s typing is not saved with it');

    await page.getByLabel('New address').fill('ada@example.com');
    await page.getByLabel('Thread notifications').check();
    await page.getByLabel('Webhook URL').fill('https://hooks.example.com/formgate');
    await page.getByLabel('Slack channel').fill('#leads');
    await save('Save notifications', 'notifications');
    await page.getByLabel('Custom honeypot field').fill('website');
    await page.getByLabel('Custom spam words').fill('casino\nlottery');
    await page.getByLabel('New origin').fill('https://example.com');
    await save('Save spam protection', 'spam-protection');
    saved = await resource(formId);
    assert.equal(saved.name, 'Contact us', 'the other sections’ saves kept it');
    assert.deepEqual(saved.notificationEmails, ['ada@example.com']);
    assert.equal(saved.emailThreading, true);
    assert.equal(saved.webhookUrl, 'https://hooks.example.com/formgate');
    assert.equal(saved.slackChannel, '#leads');
    assert.equal(saved.customHoneypot, 'website');
    assert.equal(saved.customSpamWords, 'casino\nlottery', 'the textarea’s CRLF arrives as typed');
    assert.deepEqual(saved.allowedOrigins, ['https://example.com']);
    assert.equal(await page.getByLabel('Address 1').inputValue(), 'ada@example.com');
    assert.equal(await page.getByLabel('Origin 1').inputValue(), 'https://example.com');

    // refused: a plain sentence beside the field, the top names it and links to it, what was typed kept, nothing saved
    await page.getByLabel('Address 1').fill('not-an-address');
    await refusedBy('Save notifications');
    const plain = 'Address 1 must be an email address, such as name@example.com.';
    const banner = page.getByRole('alert').filter({ hasText: 'Nothing was saved in Notifications' });
    await banner.waitFor();
    const address = page.getByLabel('Address 1');
    assert.equal(await address.getAttribute('aria-invalid'), 'true');
    assert.equal(await address.inputValue(), 'not-an-address');
    assert.equal(await page.locator(`#${(await address.getAttribute('aria-describedby'))?.split(' ')[0]}`).textContent(), plain);
    assert.deepEqual(await resource(formId), saved);
    await checkPage(page, 'form-settings-errors');
    // the banner's link leads to the field
    await banner.getByRole('link', { name: plain }).click();
    await page.waitForURL(/#field-notificationEmails-0$/);
    const box = await address.evaluate((el) => [el.getBoundingClientRect().top, el.getBoundingClientRect().bottom, window.innerHeight, window.scrollY]);
    assert.ok(box[0]! >= 0 && box[1]! <= box[2]!, `the field is in view: ${box}`);
    // the schema passes, the service's rules refuse: its message in plain words too
    await address.fill('grace@example.com');
    await page.getByLabel('Webhook URL').fill('http://localhost:8080/hook');
    await refusedBy('Save notifications');
    await page.getByRole('alert').filter({ hasText: 'Nothing was saved in Notifications' }).waitFor();
    assert.equal(await page.getByLabel('Address 1').getAttribute('aria-invalid'), null);
    assert.equal(await page.getByLabel('Webhook URL').getAttribute('aria-invalid'), 'true');
    assert.ok(
      await page
        .getByText(/^The webhook URL /)
        .first()
        .isVisible(),
    );
    await page.getByLabel('Spam protection (captcha)').selectOption('TURNSTILE');
    await refusedBy('Save spam protection');
    await page.getByText('No Cloudflare Turnstile secret key is stored for this form: store it under Secret keys first, or choose another.').first().waitFor();
    assert.equal(await page.getByLabel('Spam protection (captcha)').getAttribute('aria-invalid'), 'true');
    assert.deepEqual(await resource(formId), saved);
  });

  it('leads from its index to each section, from the keyboard too', async () => {
    const formId = await newForm('Indexed');
    await page.goto(`${app.publicUrl}/forms/${formId}/settings`);
    const index = page.getByRole('navigation', { name: 'On this page' });
    const links = index.getByRole('link');
    assert.equal(await links.count(), 14, 'the eight sections, then webhook body, chat channels, destinations and the panels after them');
    for (const link of await links.all()) {
      const name = (await link.textContent())!;
      await link.click();
      const target = page.locator(`#${(await link.getAttribute('href'))!.slice(1)}`);
      assert.ok(await target.getByRole('heading', { name, exact: true }).isVisible(), name);
      assert.ok(
        await target.evaluate(
          (el) => Math.abs(el.getBoundingClientRect().top) < 2 || window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 1,
        ),
        `${name} is scrolled to`,
      );
    }
    // from the keyboard: the index follows the form's tabs, Enter follows a link, Tab goes on inside that section
    await page.goto(`${app.publicUrl}/forms/${formId}/settings`);
    await page.getByRole('link', { name: 'Deliveries' }).focus();
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'General');
    for (let i = 0; i < 5; i++) await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'After a submission');
    await page.keyboard.press('Enter');
    await page.waitForURL(/#after-submission$/);
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'field-redirectUrl');
    await page.keyboard.type('https://example.com/thanks');
    await Promise.all([page.waitForURL(/\?saved=after-submission#after-submission$/), page.keyboard.press('Enter')]);
    assert.equal((await resource(formId)).redirectUrl, 'https://example.com/thanks');
  });

  it('sets and clears how long submissions are kept, saying what happens', async () => {
    const formId = await newForm('Kept');
    await page.goto(`${app.publicUrl}/forms/${formId}/settings`);
    const days = page.getByLabel('Delete submissions after (days)');
    assert.equal(await days.inputValue(), '');
    const hint = await page.locator(`#${await days.getAttribute('aria-describedby')}`).textContent();
    assert.match(hint ?? '', /deleted for good/);
    assert.match(hint ?? '', /cannot be undone/);
    await days.fill('90');
    await save('Save how long submissions are kept', 'retention');
    assert.equal((await resource(formId)).retentionDays, 90);
    assert.ok(await page.getByText('Now: submissions are deleted 90 days after they arrive.').isVisible());
    await page.getByRole('heading', { name: 'Keeping submissions' }).scrollIntoViewIfNeeded();
    await checkPage(page, 'form-settings-retention');

    await page.getByLabel('Delete submissions after (days)').fill('0');
    await refusedBy('Save how long submissions are kept');
    await page
      .getByText('The number of days to keep submissions must be a whole number from 1 to 3650, or empty to keep submissions until you delete them.')
      .first()
      .waitFor();
    assert.equal(await page.getByLabel('Delete submissions after (days)').getAttribute('aria-invalid'), 'true');
    assert.equal((await resource(formId)).retentionDays, 90, 'nothing saved');

    await page.goto(`${app.publicUrl}/forms/${formId}/settings`);
    await page.getByLabel('Delete submissions after (days)').fill('');
    await save('Save how long submissions are kept', 'retention');
    assert.equal((await resource(formId)).retentionDays, null);
  });

  it('works from the keyboard alone: add an address, remove one, Enter saves the section', async () => {
    const formId = await newForm('Keyboard');
    await app.ctx.forms.updateForm(userId, formId, { notificationEmails: ['ada@example.com'] });
    await page.goto(`${app.publicUrl}/forms/${formId}/settings`);
    await page.getByLabel('Address 1').focus();
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Remove address 1: ada@example.com');
    await page.keyboard.press('Tab');
    await page.keyboard.type('grace@example.com');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Add address');
    await Promise.all([page.waitForURL(/\/settings#notificationEmails$/), page.keyboard.press('Enter')]);
    assert.equal(await page.getByLabel('Address 2').inputValue(), 'grace@example.com');
    assert.ok(await page.getByText('The list changed; press Save notifications to keep it.').isVisible());
    // the address's fragment brought the keyboard back to the list: the next Tab is its first input
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'field-notificationEmails-0');
    await page.keyboard.press('Tab');
    // already at that address: wait for the page that answers the post instead
    await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.keyboard.press('Space')]);
    await page.getByLabel('Address 2').waitFor({ state: 'detached' });
    assert.equal(await page.getByLabel('Address 1').inputValue(), 'grace@example.com');
    await checkPage(page, 'form-settings-list-edited');
    // Enter in a text field saves its section (never a Remove button's action)
    await page.getByLabel('Webhook URL').focus();
    await Promise.all([page.waitForURL(/\?saved=notifications#notifications$/), page.keyboard.press('Enter')]);
    assert.ok(await page.getByRole('status').filter({ hasText: 'Notifications saved.' }).isVisible());
    assert.deepEqual((await resource(formId)).notificationEmails, ['grace@example.com']);
  });

  it('stores a captcha secret and sets the provider; the secret is never in a page; the next submission needs the captcha', async () => {
    const formId = await newForm('Signup');
    provider.reset();
    provider.expect('TURNSTILE', { secret: CAPTCHA_SECRET, token: CAPTCHA_TOKEN });
    await page.goto(`${app.publicUrl}/forms/${formId}/settings`);
    // the form uses no provider yet: their inputs wait behind a disclosure
    assert.equal(await page.getByLabel('Cloudflare Turnstile secret key').isVisible(), false);
    await page.getByText('Secret keys of the CAPTCHA providers, Slack and Akismet').click();
    await page.getByLabel('Cloudflare Turnstile secret key').fill(CAPTCHA_SECRET);
    const turnstile = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Cloudflare Turnstile', exact: true }) });
    await Promise.all([page.waitForURL(/\/settings#secret-keys$/), turnstile.getByRole('button', { name: 'Save' }).click()]);
    assert.ok(await page.getByRole('status').filter({ hasText: 'Cloudflare Turnstile secret key saved' }).isVisible());
    assert.ok(await turnstile.getByText('Set', { exact: true }).isVisible());
    assert.ok(!(await page.content()).includes(CAPTCHA_SECRET), 'the secret is not in the page');
    await page.getByLabel('Spam protection (captcha)').selectOption('TURNSTILE');
    await save('Save spam protection', 'spam-protection');
    assert.equal((await resource(formId)).spamProtection, 'TURNSTILE');
    assert.ok(!(await page.content()).includes(CAPTCHA_SECRET));
    // in use: no Remove, the reason said
    assert.equal(await turnstile.getByRole('button', { name: /^Remove/ }).count(), 0);
    assert.ok(await turnstile.getByText(/In use: the form’s spam protection/).isVisible());
    await checkPage(page, 'form-settings-secret-set');

    const forged = await postJson(app, formId, { email: 'bot@example.com', 'cf-turnstile-response': 'forged' });
    assert.equal(forged.status, 400);
    assert.equal(forged.body.code, 'captcha_failed');
    const good = await submit(app, formId, { email: 'person@example.com', 'cf-turnstile-response': CAPTCHA_TOKEN }, { accept: JSON_ACCEPT });
    assert.equal(good.status, 200);

    // Replace, from the keyboard: the disclosure opens, a new key is saved
    await turnstile.getByText('Replace').focus();
    await page.keyboard.press('Enter');
    await page.getByLabel('New Cloudflare Turnstile secret key').fill('the-replacement-key');
    await checkPage(page, 'form-settings-secret-replace');
    await Promise.all([page.waitForURL(/\/settings#secret-keys$/), turnstile.getByRole('button', { name: 'Save' }).click()]);
    assert.ok(!(await page.content()).includes('the-replacement-key'));
  });

  it('reveals and copies the webhook signing secret, and rotates it after a confirmation', async () => {
    const formId = await newForm('Webhooks');
    await app.ctx.forms.updateForm(userId, formId, { webhookUrl: 'https://hooks.example.com/in' });
    await page.goto(`${app.publicUrl}/forms/${formId}/settings`);
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Reveal signing secret' }).click(),
    ]);
    assert.equal(answer.headers()['cache-control'], 'no-store');
    const secret = (await page.getByText(/^whsec_/).textContent())?.trim();
    assert.equal(secret, await app.ctx.forms.webhookSecret(formId));
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret);
    await checkPage(page, 'form-settings-webhook-secret');

    await Promise.all([page.waitForURL(/\/webhook-secret\/rotate$/), page.getByRole('link', { name: 'Rotate…' }).click()]);
    assert.ok(await page.getByRole('heading', { name: 'Rotate the webhook signing secret?' }).isVisible());
    await checkPage(page, 'form-webhook-rotate');
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('status').filter({ hasText: 'Webhook signing secret rotated' }).waitFor();
    const fresh = (await page.getByText(/^whsec_/).textContent())?.trim();
    assert.notEqual(fresh, secret);
    assert.equal(fresh, await app.ctx.forms.webhookSecret(formId));
  });

  it('deletes a form after a confirmation naming what goes with it', async () => {
    const formId = await newForm('Old survey');
    await app.ctx.forms.updateForm(userId, formId, { notificationEmails: ['ada@example.com'] });
    assert.equal((await postJson(app, formId, { answer: 'yes' })).status, 200);
    await page.goto(`${app.publicUrl}/forms/${formId}/settings`);
    await Promise.all([page.waitForURL(/\/delete$/), page.getByRole('link', { name: 'Delete form…' }).click()]);
    assert.ok(await page.getByRole('heading', { name: 'Delete “Old survey”?' }).isVisible());
    assert.ok(await page.getByText('1 submission (1 in the inbox, 0 spam, 0 held)').isVisible());
    assert.ok(await page.getByText('1 delivery (email, webhook, Slack) waiting to go out: it is not sent').isVisible());
    await checkPage(page, 'form-delete');
    await Promise.all([page.waitForURL(new RegExp(`/w/${workspaceId}$`)), page.getByRole('button', { name: 'Delete form' }).click()]);
    assert.ok(await page.getByRole('status').filter({ hasText: 'Form “Old survey” deleted' }).isVisible());
    await assert.rejects(app.ctx.forms.getForm(userId, formId), /not found/);
  });
});
