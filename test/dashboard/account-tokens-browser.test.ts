import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { RESET_LINK_LIFETIME_MS } from '../../src/services/password-resets.js';
import { hashSecret, newSecret } from '../../src/services/secrets.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium } from '../helpers/browser.js';
import { logIn } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';

const EMAIL = 'owner@example.com';
const PASSWORD = 'correct horse battery';

describe(`dashboard in Chromium: "Also revoke my API tokens" (${TEST_DIALECT})`, { skip: needsChromium }, () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let userId: string;

  before(async () => {
    app = await startApp();
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    ({
      user: { id: userId },
    } = await app.ctx.users.createUser(EMAIL, PASSWORD));
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  const works = async (secret: string) => (await app.api('GET', '/me', { token: secret })).status === 200;

  it('changes the password from the keyboard, and the box, ticked as it comes, revokes the tokens', async () => {
    const { secret } = await app.ctx.tokens.createToken(userId, { name: 'ci', scopes: ['forms:read'] });
    await app.ctx.tokens.createToken(userId, { name: 'deploy', scopes: ['forms:read'] });
    await logIn(page, app, EMAIL, PASSWORD);
    await page.goto(`${app.publicUrl}/account`);
    const change = page.getByRole('region', { name: 'Change password' });
    const box = change.getByRole('checkbox', { name: 'Also revoke my API tokens' });
    assert.ok(await box.isChecked(), 'ticked by default');
    assert.ok(await change.getByText('Your account has 2 active API tokens; programs using them stop working until you create new ones.').isVisible());
    assert.ok(await page.getByRole('region', { name: 'Log out everywhere' }).getByRole('checkbox', { name: 'Also revoke my API tokens' }).isChecked());
    await checkPage(page, 'account-revoke-tokens');
    await change.getByLabel('Current password').fill(PASSWORD);
    await change.getByLabel('New password').fill('a brand new password');
    // from the keyboard: past the box (left as it is) to the button
    await page.keyboard.press('Tab');
    assert.ok(await box.evaluate((el) => el === document.activeElement), 'the box comes next');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Password changed; 2 API tokens revoked' }).waitFor();
    assert.equal(await works(secret), false);
    assert.ok(await change.getByText('Your account has no active API token now.').isVisible());
    await app.ctx.users.setPassword(userId, PASSWORD);
  });

  it('shows the box on the reset link’s page; unticked, the tokens stay', async () => {
    const { secret } = await app.ctx.tokens.createToken(userId, { name: 'kept', scopes: ['forms:read'] });
    const link = newSecret();
    const now = Date.now();
    await app.ctx.database.db
      .insertInto('passwordResets')
      .values({ tokenHash: hashSecret(link), userId, createdAt: now, expiresAt: now + RESET_LINK_LIFETIME_MS, usedAt: null })
      .execute();
    const visitor = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await visitor.goto(`${app.publicUrl}/reset-password/${link}`);
    const box = visitor.getByRole('checkbox', { name: 'Also revoke my API tokens' });
    assert.ok(await box.isChecked());
    assert.ok(await visitor.getByText('Your account has 1 active API token; programs using it stop working until you create new ones.').isVisible());
    await checkPage(visitor, 'reset-revoke-tokens');
    await visitor.getByLabel('New password').fill('another new password');
    await box.uncheck();
    await Promise.all([visitor.waitForURL(/\/login$/), visitor.getByRole('button', { name: 'Set new password' }).click()]);
    assert.ok(await works(secret), 'kept: the box was unticked');
    await visitor.context().close();
  });
});
