import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium } from '../helpers/browser.js';
import { logIn, signUp } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { assertProblem } from '../helpers/problems.js';

const PASSWORD = 'correct horse battery';
const SECRET = /^fg_[\w-]{43}$/;

describe(`dashboard in Chromium: API tokens (${TEST_DIALECT})`, { skip: needsChromium }, () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;

  before(async () => {
    app = await startApp();
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, permissions: ['clipboard-read', 'clipboard-write'] });
    page = await context.newPage();
    await signUp(page, app, 'owner@example.com', PASSWORD);
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  it('creates a token with two scopes, copies it, calls the API with it, then revokes it and the API refuses it', async () => {
    await page.goto(`${app.publicUrl}/account/tokens`);
    assert.ok(await page.getByText('No tokens yet.').isVisible());
    await checkPage(page, 'tokens-empty');

    // nothing chosen: the messages beside the fields
    await Promise.all([page.waitForURL(/\/account\/tokens#create-token-heading$/), page.getByRole('button', { name: 'Create token' }).click()]);
    assert.ok(await page.getByText('Must be 1 to 128 characters.').isVisible());
    assert.ok(await page.getByText(/^Name at least one of/).isVisible());
    await checkPage(page, 'tokens-errors');

    await page.getByLabel('Name').fill('ci');
    await page.getByLabel('forms:read').check();
    await page.getByLabel('submissions:read').check();
    // a wrong password: said beside its field, nothing made, the rest of the form kept
    await page.getByLabel('Current password').fill('not my password');
    await Promise.all([page.waitForURL(/\/account\/tokens#create-token-heading$/), page.getByRole('button', { name: 'Create token' }).click()]);
    assert.ok(await page.getByText('Is not the account’s password.').isVisible());
    assert.equal(await page.getByLabel('Name').inputValue(), 'ci');
    assert.ok(await page.getByLabel('submissions:read').isChecked());
    await checkPage(page, 'tokens-wrong-password');
    assert.equal((await app.ctx.tokens.listTokens((await app.ctx.users.requireByEmail('owner@example.com')).id)).length, 0);
    await page.getByLabel('Current password').fill(PASSWORD);
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/account/tokens'),
      page.getByRole('button', { name: 'Create token' }).click(),
    ]);
    assert.equal(answer.status(), 200);
    assert.equal(answer.headers()['cache-control'], 'no-store', 'the page with the secret is never cached');
    await page.getByRole('heading', { name: 'Your new token “ci”' }).waitFor();
    assert.ok(await page.getByText('Copy it now: it will not be shown again.').isVisible());
    assert.ok(await page.getByRole('status').filter({ hasText: 'Token created' }).isVisible());
    const secret = (await page.getByText(SECRET).textContent())?.trim() ?? '';
    assert.match(secret, SECRET);
    assert.ok(await page.getByText(app.baseUrl, { exact: false }).first().isVisible(), 'the API’s base URL is given');

    const copy = page.getByRole('button', { name: 'Copy' });
    assert.ok(await copy.isVisible(), 'the script shows the copy button');
    await copy.click();
    await page.getByText('Copied to the clipboard.').waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret);
    await checkPage(page, 'token-created');

    const me = await app.api('GET', '/me', { token: secret });
    assert.equal(me.status, 200);
    assert.equal(me.body.name, 'ci');
    assert.deepEqual(me.body.scopes, ['forms:read', 'submissions:read']);

    // a fuller list for the screenshots: a token with an expiry, and a revoked one
    const userId = (await app.ctx.users.requireByEmail('owner@example.com')).id;
    await app.ctx.tokens.createToken(userId, {
      name: 'deploy script',
      scopes: ['forms:read', 'forms:write'],
      expiresAt: new Date(Date.now() + 30 * 86_400_000),
    });
    await app.ctx.tokens
      .createToken(userId, { name: 'old laptop', scopes: ['submissions:read'] })
      .then(({ token }) => app.ctx.tokens.revokeTokenById(userId, token.id));
    await page.getByRole('link', { name: 'Back to API tokens' }).click();
    await page.waitForURL(/\/account\/tokens$/);
    assert.ok(await page.getByRole('cell', { name: 'Revoked' }).isVisible());
    assert.equal(await page.getByRole('button', { name: /^Revoke token/ }).count(), 2, 'a Revoke button per active token');
    await checkPage(page, 'tokens-list');

    await Promise.all([page.waitForURL(/\/revoke\??$/), page.getByRole('button', { name: 'Revoke token “ci”' }).click()]);
    assert.ok(await page.getByRole('heading', { name: 'Revoke token “ci”?' }).isVisible());
    assert.ok(await page.getByText('Programs using it stop working at once.').isVisible());
    await checkPage(page, 'token-revoke');
    await Promise.all([page.waitForURL(/\/account\/tokens$/), page.getByRole('button', { name: 'Revoke token' }).click()]);
    assert.ok(await page.getByRole('status').filter({ hasText: 'Token revoked' }).isVisible());

    assertProblem(app, await app.api('GET', '/me', { token: secret }), 'invalid_token');
  });

  it('works without JavaScript: the token is shown, the copy button is not', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, javaScriptEnabled: false });
    const plain = await context.newPage();
    await app.ctx.users.createUser('no-script@example.com', PASSWORD);
    await logIn(plain, app, 'no-script@example.com', PASSWORD);
    await plain.goto(`${app.publicUrl}/account/tokens`);
    await plain.getByLabel('Name').fill('no script');
    await plain.getByLabel('workspaces:read').check();
    await plain.getByLabel('Current password').fill(PASSWORD);
    await Promise.all([plain.waitForURL(/\/account\/tokens#create-token-heading$/), plain.getByRole('button', { name: 'Create token' }).click()]);
    const secret = (await plain.getByText(SECRET).textContent())?.trim() ?? '';
    assert.equal((await app.api('GET', '/workspaces', { token: secret })).status, 200);
    assert.equal(await plain.getByRole('button', { name: 'Copy' }).isVisible(), false);
    await context.close();
  });
});
