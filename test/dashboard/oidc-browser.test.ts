import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { UserRow } from '../../src/db/schema/user.js';
import type { OidcSettingsInput } from '../../src/services/oidc-settings.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium, newPage } from '../helpers/browser.js';
import { logIn } from '../helpers/dashboard.js';
import { TEST_CLIENT_ID, TEST_CLIENT_SECRET, TestProvider } from '../helpers/oidc-provider.js';

// Single sign-on in Chromium, end to end against a real OpenID Provider (issue 43, item 3): every
// page it adds or changes, checked at 390 and 1280 px, light and dark.
describe('single sign-on in Chromium', { skip: needsChromium }, () => {
  let provider: TestProvider;
  let app: TestApp;
  let browser: Browser;
  let admin: UserRow;

  before(async () => {
    provider = await TestProvider.start();
    app = await startApp({ oidcIssuer: provider.issuer, oidcClientId: TEST_CLIENT_ID, oidcClientSecret: TEST_CLIENT_SECRET, oidcName: 'Keycloak' });
    provider.allow(`${app.publicUrl}/login/oidc/callback`);
    admin = (await app.ctx.users.createUser('admin@example.com', 'password-of-the-admin')).user;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await provider?.stop();
  });

  async function configure(settings: Partial<OidcSettingsInput>): Promise<void> {
    await app.ctx.oidcSettings.save(admin, { issuer: '', clientId: '', clientSecret: '', name: '', signup: false, only: false, rules: '', ...settings });
  }

  async function signInWithProvider(page: Page, landing: RegExp): Promise<void> {
    await page.goto(`${app.publicUrl}/login`);
    await Promise.all([page.waitForURL(landing), page.getByRole('link', { name: 'Sign in with Keycloak' }).click()]);
  }

  it('signs a new person in through the provider, from the login page', async () => {
    await configure({ signup: true });
    provider.signingIn = { sub: 'erin', email: 'erin@example.net', email_verified: true };
    const page = await newPage(browser);
    await page.goto(`${app.publicUrl}/login`);
    await checkPage(page, 'oidc-login');
    await signInWithProvider(page, /\/w\/[^/]+$/);
    await page.getByText('No forms yet').waitFor();
    assert.ok(await app.ctx.users.findByEmail('erin@example.net'));
    await page.context().close();
  });

  it('asks an existing account’s password once to link it', async () => {
    await app.ctx.users.createUser('fay@example.org', 'password-of-fay');
    provider.signingIn = { sub: 'fay', email: 'fay@example.org', email_verified: true };
    const page = await newPage(browser);
    await signInWithProvider(page, /\/login\/oidc\/link$/);
    await page.getByRole('heading', { name: 'Link your account' }).waitFor();
    await checkPage(page, 'oidc-link');
    await page.getByLabel('Password').fill('not-hers');
    await page.getByRole('button', { name: 'Link and sign in' }).click();
    await page.getByText('This is not the password of your account here.').waitFor();
    await checkPage(page, 'oidc-link-error');
    await page.getByLabel('Password').fill('password-of-fay');
    await Promise.all([page.waitForURL(/\/w\/[^/]+$/), page.getByRole('button', { name: 'Link and sign in' }).click()]);
    await page.context().close();
  });

  it('says why it refuses an email that is not verified', async () => {
    provider.signingIn = { sub: 'gus', email: 'gus@example.org', email_verified: false };
    const page = await newPage(browser);
    await signInWithProvider(page, /\/login\/oidc\/callback/);
    await page.getByRole('heading', { name: 'Your email address is not verified' }).waitFor();
    await checkPage(page, 'oidc-refused');
    await page.context().close();
  });

  it('shows single sign-on only on the login, sign-up, reset and account pages', async () => {
    await configure({ only: true, signup: true });
    const page = await newPage(browser);
    await page.goto(`${app.publicUrl}/login`);
    assert.equal(await page.getByLabel('Password').count(), 0);
    await checkPage(page, 'oidc-login-only');
    await page.getByRole('link', { name: 'Admin sign-in' }).click();
    await page.getByLabel('Password').waitFor();
    await checkPage(page, 'oidc-login-admin');
    await page.goto(`${app.publicUrl}/signup`);
    await page.getByRole('heading', { name: 'Single sign-on only' }).waitFor();
    await checkPage(page, 'oidc-signup-refused');
    await page.goto(`${app.publicUrl}/forgot-password`);
    await page.getByText('passwords work for its admins only').waitFor();
    await checkPage(page, 'oidc-forgot-password');
    provider.signingIn = { sub: 'erin', email: 'erin@example.net', email_verified: true };
    await signInWithProvider(page, /\/w\/[^/]+$/);
    await page.goto(`${app.publicUrl}/account`);
    await page.getByRole('heading', { name: 'Password' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Change password' }).count(), 0);
    await checkPage(page, 'oidc-account');
    await page.context().close();
    await configure({});
  });

  it('lets the instance admin set single sign-on up on /admin/sign-in', async () => {
    const page = await newPage(browser);
    await logIn(page, app, 'admin@example.com', 'password-of-the-admin');
    await page.goto(`${app.publicUrl}/admin`);
    await Promise.all([page.waitForURL(/\/admin\/sign-in$/), page.getByRole('link', { name: 'Single sign-on settings' }).click()]);
    await page.getByText(`${app.publicUrl}/login/oidc/callback`).waitFor();
    await page.getByText('(set by FORMGATE_OIDC_ISSUER)').waitFor();
    await checkPage(page, 'admin-sign-in');
    await page.getByLabel('Make an account at a first sign-in').check();
    await page.getByLabel('Membership rules').fill('groups=editors -> nosuchworkspace2345');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Rule 1').waitFor();
    await checkPage(page, 'admin-sign-in-error');
    await page.getByLabel('Membership rules').fill('');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Single sign-on settings saved.').waitFor();
    assert.equal((await app.ctx.oidcSettings.view()).signup, true);
    await page.getByRole('button', { name: 'Check the provider' }).click();
    await page.getByText(`The provider answered: issuer ${provider.issuer}`).waitFor();
    await page.context().close();
  });

  it('shows a clear page when the provider is down', async () => {
    const other = await startApp({ oidcIssuer: 'http://127.0.0.1:9', oidcClientId: 'x', oidcClientSecret: 'y', oidcName: 'Keycloak' });
    try {
      await other.ctx.users.createUser('admin@example.com', 'password-of-the-admin');
      const page = await newPage(browser);
      await page.goto(`${other.publicUrl}/login`);
      await page.getByRole('link', { name: 'Sign in with Keycloak' }).click();
      await page.getByRole('heading', { name: 'Sign-in is not available' }).waitFor();
      await checkPage(page, 'oidc-provider-down');
      await page.context().close();
    } finally {
      await other.close();
    }
  });
});
