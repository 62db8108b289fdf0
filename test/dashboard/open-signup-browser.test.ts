import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { SignupLinks } from '../../src/services/signup-links.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium, newPage } from '../helpers/browser.js';
import { until } from '../helpers/eventually.js';
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js';

const LINK = /http:\/\/[^\s]+\/signup\/confirm\?token=[A-Za-z0-9_.-]+/;

describe('dashboard in Chromium: open sign-up by emailed link', { skip: needsChromium }, () => {
  let app: TestApp;
  let sink: SmtpSink;
  let browser: Browser;

  before(async () => {
    sink = await startSmtpSink();
    app = await startApp({ signup: 'open', smtpUrl: sink.url }, { delivery: true });
    await app.ctx.users.createUser('admin@example.com', 'the admin password');
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await sink?.close();
  });

  it('asks for an address, emails a link, and the link’s page makes the account and logs it in', async () => {
    const page = await newPage(browser);
    // no script: every step is a plain form post and a redirect
    await page.context().route('**/*.js', (route) => route.abort());
    await page.goto(`${app.publicUrl}/signup`);
    assert.equal(await page.getByLabel('Password').count(), 0, 'only the address is asked for');
    await checkPage(page, 'signup-open');

    await page.getByLabel('Email').fill('grace@example.com');
    await Promise.all([page.waitForURL(/\/signup\/sent$/), page.getByRole('button', { name: 'Send sign-up link' }).click()]);
    await page.getByRole('status').filter({ hasText: 'We sent a link to grace@example.com.' }).waitFor();
    await checkPage(page, 'signup-sent');

    await until('the sign-up email', () => sink.messages.some((m) => m.envelopeTo.includes('grace@example.com')));
    const mail = sink.messages.find((m) => m.envelopeTo.includes('grace@example.com'))!;
    const link = LINK.exec(mail.parsed.text ?? '')![0];
    await page.goto(link);
    assert.equal(await page.getByLabel('Email').inputValue(), 'grace@example.com');
    assert.equal(await page.getByLabel('Workspace name').inputValue(), 'Example');
    assert.equal(await page.getByLabel('Email').getAttribute('readonly'), '', 'the address cannot be changed');
    await checkPage(page, 'signup-confirm');

    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('Must be at least 8 characters.').waitFor();
    await checkPage(page, 'signup-confirm-error');

    await page.getByLabel('Password').fill('compiler pioneer');
    await Promise.all([page.waitForURL(/\/w\/[^/]+$/), page.getByRole('button', { name: 'Create account' }).click()]);
    await page.getByRole('status').filter({ hasText: 'Welcome to Formgate' }).waitFor();
    // the workspace is named as the page offered it, after the address's domain (issue 41, item 17)
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Example');

    await page.goto(link);
    await page.getByRole('heading', { level: 1, name: 'This link was used' }).waitFor();
    await page.getByRole('link', { name: 'Log in' }).waitFor();
    await checkPage(page, 'signup-link-used');
    await page.context().close();
  });

  it('shows an expired link’s page with a way to ask again', async () => {
    const page = await newPage(browser);
    const expired = new SignupLinks(app.ctx.secret, () => Date.now() - 25 * 60 * 60_000).issue('late@example.com');
    const answer = await page.goto(`${app.publicUrl}/signup/confirm?token=${expired}`);
    assert.equal(answer?.status(), 410);
    await page.getByRole('heading', { level: 1, name: 'This link no longer works' }).waitFor();
    await page.getByRole('link', { name: 'Ask for a new link' }).waitFor();
    await checkPage(page, 'signup-link-expired');
    await page.context().close();
  });
});
