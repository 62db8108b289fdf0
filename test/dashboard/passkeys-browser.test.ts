import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium, newPage, SCREENSHOT_DIR } from '../helpers/browser.js';
import { logIn, logOut } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { atLocalhost } from '../helpers/passkey-client.js';
import { addVirtualAuthenticator, type VirtualAuthenticator } from '../helpers/virtual-authenticator.js';

const EMAIL = 'keys@example.com';
const PASSWORD = 'a long enough password';

/**
 * Passkeys in Chromium with its virtual authenticator (issue 43, item 2): the real ceremony, the
 * browser library and assets/passkeys.js under the dashboard's Content-Security-Policy, at
 * `localhost` (no passkey is made for an IP address).
 */
describe(`passkeys in Chromium (${TEST_DIALECT})`, { skip: needsChromium }, () => {
  let app: TestApp;
  let site: TestApp;
  let browser: Browser;
  let userId: string;
  let page: Page;
  let authenticator: VirtualAuthenticator;

  before(async () => {
    app = await startApp();
    site = atLocalhost(app);
    ({
      user: { id: userId },
    } = await app.ctx.users.createUser(EMAIL, PASSWORD));
    browser = await launchBrowser();
    page = await newPage(browser);
    authenticator = await addVirtualAuthenticator(page);
  });
  // each test begins signed out, whatever the one before left
  beforeEach(() => page?.context().clearCookies());
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  const secondFactorAt = async () =>
    (await app.ctx.database.db.selectFrom('users').select('secondFactorAt').where('id', '=', userId).executeTakeFirstOrThrow()).secondFactorAt;
  const flash = (text: string) => page.getByRole('status').getByText(text).waitFor();

  async function addPasskey(name: string): Promise<void> {
    await page.goto(`${site.publicUrl}/account/passkeys`);
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await flash(`Passkey “${name}” added`);
  }

  it('adds, renames and removes a passkey; second_factor_at follows', async () => {
    await logIn(page, site, EMAIL, PASSWORD);
    await page.goto(`${site.publicUrl}/account`);
    await Promise.all([page.waitForURL(/\/account\/passkeys$/), page.getByRole('link', { name: 'Passkeys' }).click()]);
    await page.getByText('No passkeys yet.').waitFor();
    await checkPage(page, 'passkeys-empty');

    await addPasskey('Work laptop');
    await page.getByRole('table', { name: 'Your passkeys' }).getByText('Work laptop', { exact: true }).waitFor();
    assert.notEqual(await secondFactorAt(), null, 'a passkey is a second factor');
    const [held] = await authenticator.credentials();
    assert.equal(held?.isResidentCredential, true, 'discoverable: it signs in without an address');
    await checkPage(page, 'passkeys');

    await page.getByRole('link', { name: 'Rename or remove “Work laptop”' }).click();
    await page.getByRole('heading', { name: 'Passkey “Work laptop”' }).waitFor();
    await checkPage(page, 'passkey');
    await page.getByLabel('Name', { exact: true }).fill('Old laptop');
    await page.getByRole('button', { name: 'Rename passkey' }).click();
    await flash('Passkey renamed “Old laptop”');

    await page.getByRole('link', { name: 'Rename or remove “Old laptop”' }).click();
    await page.getByRole('button', { name: 'Remove passkey' }).click();
    await flash('Passkey “Old laptop” removed.');
    await page.getByText('No passkeys yet.').waitFor();
    assert.equal(await secondFactorAt(), null, 'no second factor left');
    await logOut(page);
  });

  it('signs in with a passkey alone, no address typed; the same answer sent again is refused', async () => {
    await logIn(page, site, EMAIL, PASSWORD);
    await addPasskey('Phone');
    await logOut(page);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor();
    await checkPage(page, 'login-passkey');
    const [posted] = await Promise.all([
      page.waitForRequest((request) => request.url().endsWith('/login/passkey') && request.method() === 'POST'),
      page.waitForURL(/\/w\/[^/]+$/),
      page.getByRole('button', { name: 'Sign in with a passkey' }).click(),
    ]);

    // the browser's very request (its cookies, the ceremony's included) sent again
    const headers = await posted.allHeaders();
    const replayed = await fetch(posted.url(), {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: headers.cookie ?? '', 'content-type': headers['content-type'] ?? '' },
      body: posted.postData() ?? '',
    });
    assert.equal(replayed.status, 400);
    assert.match(await replayed.text(), /That passkey answer was already used/);
    assert.equal(
      replayed.headers.getSetCookie().some((c) => c.startsWith('fg_session=') && !/Expires=Thu, 01 Jan 1970/i.test(c)),
      false,
      'no session',
    );
    await logOut(page);
  });

  it('finishes a password sign-in with a passkey as the second factor', async () => {
    assert.notEqual(await secondFactorAt(), null);
    await logIn(page, site, EMAIL, PASSWORD, /\/login\/two-factor$/);
    await page.getByRole('button', { name: 'Use a passkey' }).waitFor();
    await checkPage(page, 'two-factor-passkey');
    await Promise.all([page.waitForURL(/\/w\/[^/]+$/), page.getByRole('button', { name: 'Use a passkey' }).click()]);
    const session = await app.ctx.database.db.selectFrom('sessions').select('secondFactorAt').where('userId', '=', userId).executeTakeFirstOrThrow();
    assert.notEqual(session.secondFactorAt, null, 'the session proved the second factor');

    // 15 minutes on, adding another asks to confirm it is you: with the passkey
    const old = Date.now() - 20 * 60_000;
    await app.ctx.database.db.updateTable('sessions').set({ createdAt: old, secondFactorAt: old }).where('userId', '=', userId).execute();
    await page.goto(`${site.publicUrl}/account/passkeys`);
    await page.getByText('To add a passkey, first confirm it is you with your second factor.').waitFor();
    await checkPage(page, 'passkeys-confirm');
    await page.getByRole('button', { name: 'Confirm with a passkey' }).click();
    await flash('Confirmed: for 15 minutes you can add and remove passkeys and make API tokens.');
    await page.getByRole('button', { name: 'Add a passkey' }).waitFor();

    // the token form offers the passkey in place of a code, and comes back to itself
    await app.ctx.database.db.updateTable('sessions').set({ secondFactorAt: old }).where('userId', '=', userId).execute();
    await page.goto(`${site.publicUrl}/account/tokens`);
    const create = page.getByRole('region', { name: 'Create token' });
    await create.getByRole('button', { name: 'Confirm with a passkey' }).waitFor();
    await checkPage(page, 'tokens-passkey-instead-of-code');
    await create.getByRole('button', { name: 'Confirm with a passkey' }).click();
    await create.getByRole('button', { name: 'Confirm with a passkey' }).waitFor({ state: 'detached' });
    assert.match(page.url(), /\/account\/tokens$/, 'back on the token form');
    assert.equal(await create.getByLabel('Code from your authenticator app').count(), 0, 'and no code asked');
  });

  it('says plainly that adding a passkey needs JavaScript when it is off', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, javaScriptEnabled: false });
    const plain = await context.newPage();
    await app.ctx.users.createUser('no-script@example.com', PASSWORD);
    await logIn(plain, site, 'no-script@example.com', PASSWORD);
    await plain.goto(`${site.publicUrl}/account/passkeys`);
    await plain.getByText('Adding a passkey needs JavaScript, which is off in this browser').waitFor();
    assert.equal(await plain.getByRole('button', { name: 'Add a passkey' }).isVisible(), false);
    // NOTE: not checkPage: axe runs in the page, and this page runs no script
    await plain.screenshot({ path: path.join(SCREENSHOT_DIR, 'passkeys-no-script-1280.png'), fullPage: true });
    await context.close();
  });
});
