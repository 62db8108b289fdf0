// Rotating the installation's secret: what was signed with the old one keeps working while it is
// listed in FORMGATE_SECRET_PREVIOUS, and stops once it is dropped; everything new is signed with the new one.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CursorCodec } from '../../src/web/pagination.js';
import { Keyring } from '../../src/keyring.js';
import { SignupLinks } from '../../src/services/signup-links.js';
import { ThankYouLinks } from '../../src/submit/thank-you-link.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { type Account, createAccount, createForm } from '../helpers/fixtures.js';

const A = 'secret-A-0123456789abcdefghijklmnopqrstuvwxyz';
const B = 'secret-B-0123456789abcdefghijklmnopqrstuvwxyz';
const VISITOR = '203.0.113.9';

describe('secret rotation (FORMGATE_SECRET_PREVIOUS)', () => {
  let database: TestDatabase;
  let account: Account;
  let formId: string;
  // made under A
  let cursor: string;
  let thanks: string;
  let signupToken: string;
  let browser: DashboardClient;
  const running: TestApp[] = [];

  /** The same installation started again with these secrets, the dashboard's browser carried over. */
  async function restart(env: { secret: string; secretPrevious?: string }): Promise<{ app: TestApp; page: DashboardClient }> {
    const app = await startApp(env, { database });
    running.push(app);
    const page = new DashboardClient(app);
    for (const [name, value] of browser.cookies) page.cookies.set(name, value);
    page.csrf = browser.csrf;
    return { app, page };
  }

  const formsPage = (app: TestApp, after?: string) =>
    app.api('GET', `/forms?workspaceId=${account.workspaceId}&limit=1${after ? `&startingAfter=${encodeURIComponent(after)}` : ''}`, { token: account.token });

  before(async () => {
    database = await createTestDatabase();
    const app = await startApp({ secret: A }, { database });
    // the first account signs up (the instance admin): a session, and the signed CSRF cookie and token
    browser = new DashboardClient(app);
    await browser.enter('/signup', `rotation-${process.pid}@example.com`, 'a long enough password');
    const home = await browser.get('/');
    browser.csrf = '';
    await browser.get(new URL(home.location!, app.publicUrl).pathname);
    assert.ok(browser.csrf, "the workspace's page, with the session's CSRF token");
    assert.ok(
      [...browser.cookies.keys()].some((name) => name.endsWith('fg_csrf')),
      'the signed CSRF cookie',
    );
    account = await createAccount(app);
    formId = (await createForm(app, account, { name: 'One' })).id;
    await createForm(app, account, { name: 'Two' });
    const first = await formsPage(app);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    cursor = first.body.nextCursor;
    assert.ok(cursor, 'a second page');
    thanks = new ThankYouLinks(app.ctx.keyring).build(app.submitUrl, formId, { dark: true }, VISITOR);
    signupToken = new SignupLinks(app.ctx.keyring).issue('later@example.com');
    await app.close();
  });

  after(async () => {
    for (const app of running) await app.close();
    await database?.drop();
  });

  it('refuses what the old secret signed once it is no longer listed (sessions are not signatures: they stay)', async () => {
    const { app, page } = await restart({ secret: B });
    assert.equal((await formsPage(app, cursor)).status, 400, 'the cursor');
    assert.deepEqual(new ThankYouLinks(app.ctx.keyring).read(formId, new URL(thanks).searchParams, VISITOR, []), {}, 'the thank-you link shows defaults');
    assert.equal(new SignupLinks(app.ctx.keyring).read(signupToken), null, 'the sign-up link');
    assert.equal((await page.get('/')).status, 303, 'the session is a database row, valid whatever the secret');
    const change = await page.post('/logout', {});
    assert.equal(change.status, 403, 'the CSRF cookie and token were signed with A');
    await app.close();
  });

  it('accepts what the previous secret signed and signs everything new with the current one', async () => {
    const { app, page } = await restart({ secret: B, secretPrevious: `unrelated-old-secret-0123456789abcdefgh, ${A}` });
    const second = await formsPage(app, cursor);
    assert.equal(second.status, 200, JSON.stringify(second.body));
    assert.equal(second.body.data.length, 1);
    assert.deepEqual(new ThankYouLinks(app.ctx.keyring).read(formId, new URL(thanks).searchParams, VISITOR, []), { dark: true }, 'the thank-you link');
    assert.equal(new SignupLinks(app.ctx.keyring).read(signupToken)?.email, 'later@example.com', 'the sign-up link');

    // new signatures are B's alone
    const onlyB = new Keyring(B);
    const fresh = (await formsPage(app)).body.nextCursor;
    assert.doesNotThrow(() => new CursorCodec(onlyB).decode(`forms:${account.workspaceId}`, fresh));
    assert.throws(() => new CursorCodec(A).decode(`forms:${account.workspaceId}`, fresh));
    const link = new ThankYouLinks(app.ctx.keyring).build(app.submitUrl, formId, { dark: true }, VISITOR);
    assert.deepEqual(new ThankYouLinks(onlyB).read(formId, new URL(link).searchParams, VISITOR, []), { dark: true });
    assert.ok(new SignupLinks(onlyB).read(new SignupLinks(app.ctx.keyring).issue('new@example.com')));

    const change = await page.post('/logout', {});
    assert.equal(change.status, 303, `a page loaded before the rotation still posts: ${change.html.slice(0, 200)}`);
    await app.close();
  });
});
