import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SCOPES } from '../../src/domain/scopes.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { createAccount, createToken, type Account } from '../helpers/fixtures.js';
import { BROWSER_ACCEPT, post, request, storedRows, visitorAddresses } from '../helpers/submit.js';

const EVIL = 'https://evil.example';
const OTHER = 'https://other.example';
const LURE = 'Your mailbox is locked: call +1 555 0100';
const visitor = visitorAddresses(139);
/** The page's text as a browser reads it (Handlebars writes `=` as `&#x3D;`). */
const unescaped = (html: string) => html.replaceAll('&#x3D;', '=').replaceAll('&amp;', '&');

/**
 * Issue 38, item 11: with open sign-up, a stranger's form made the operator's submit domain an open
 * redirector (`GET /<form>?utm=1` → 303 to its own site) and a host for its words (the thank-you
 * page). A workspace the admin has not vouched for keeps the spec's POST redirects; a GET, which can
 * be a link sent to anyone, gets a page naming the destination instead, and its pages show only
 * their own wording.
 */
describe(`submit surface: a stranger's form on an open instance (${TEST_DIALECT})`, () => {
  let app: TestApp;
  let stranger: Account;
  let admin: Account;

  before(async () => {
    app = await startApp({ signup: 'open' });
    const first = await app.ctx.users.createUser('admin@operator.example', 'a long enough password');
    assert.equal(first.user.isAdmin, 1);
    admin = { userId: first.user.id, email: first.user.email, workspaceId: first.workspace.id, token: await createToken(app, first.user.id, SCOPES) };
    // the setup page's default: every workspace has the API, so a stranger's FREE one too
    await app.ctx.instance.setUsage('team');
    stranger = await createAccount(app, { plan: 'FREE' });
  });
  after(() => app.close());

  async function formOf(owner: Account, settings: Record<string, unknown>): Promise<string> {
    const answer = await app.api('POST', '/forms', { token: owner.token, body: { workspaceId: owner.workspaceId, name: 'Contact', ...settings } });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    return answer.body.id;
  }

  const open = (path: string, from: { localAddress: string }, headers: Record<string, string> = {}) =>
    request('GET', `${app.submitUrl}/${path}`, null, { accept: BROWSER_ACCEPT, ...headers }, from.localAddress);

  it('a GET link to its form is taken, and answered with a page that names the destination instead of going there', async () => {
    const formId = await formOf(stranger, { redirectUrl: `${EVIL}/landing` });
    const page = await open(`${formId}?utm=1`, visitor());
    assert.equal(page.status, 200, `no redirect: ${page.headers.get('location')}`);
    assert.equal(page.headers.get('location'), null);
    assert.match(page.body, /The form’s owner asks to send you on to the address below, which this site has not checked/);
    assert.match(page.body, /<a href="https:\/\/evil\.example\/landing"><span aria-hidden="true">→<\/span> https:\/\/evil\.example\/landing<\/a>/);
    assert.equal(page.headers.get('cache-control'), 'no-store');

    const appended = await open(`${formId}?utm=2&_append=1`, visitor());
    assert.equal(appended.status, 200);
    const rows = await storedRows(app, formId);
    assert.equal(rows.length, 2, 'both submissions were stored: nothing a visitor sent is lost');
    assert.ok(unescaped(appended.body).includes(`${EVIL}/landing?submissionId=${rows[1]!.id}`), 'the page names the whole destination, `_append` included');

    // a link on one of its listed sites to another: named too
    const listed = await formOf(stranger, { allowedOrigins: [EVIL, OTHER] });
    const hop = await open(`${listed}?m=1&_redirect=${encodeURIComponent(`${OTHER}/x?y=1`)}`, visitor(), { referer: `${EVIL}/page` });
    assert.equal(hop.status, 200);
    assert.ok(unescaped(hop.body).includes(`href="${OTHER}/x?y=1"`), hop.body);

    // a failed GET's `_error` elsewhere is ignored: the built-in error page, with no words of the post
    const failed = await open(
      `${listed}?message=&_error=${encodeURIComponent(`${OTHER}/error`)}&_feedback.error.title=${encodeURIComponent(LURE)}`,
      visitor(),
      {
        referer: `${EVIL}/page`,
      },
    );
    assert.equal(failed.status, 400, `no redirect: ${failed.headers.get('location')}`);
    assert.doesNotMatch(failed.body, /mailbox is locked/);
  });

  it('keeps the redirects a GET from the site itself and every POST get (the spec and the hosted service)', async () => {
    const formId = await formOf(stranger, { redirectUrl: `${EVIL}/landing`, allowedOrigins: [EVIL] });
    const back = await open(`${formId}?utm=1&_redirect=${encodeURIComponent(`${EVIL}/thanks`)}`, visitor(), { referer: `${EVIL}/contact` });
    assert.equal(back.status, 303, 'a GET form on the site goes back to the site it came from');
    assert.equal(back.headers.get('location'), `${EVIL}/thanks`);
    const posted = await post(app, formId, { message: 'hi', _redirect: `${EVIL}/thanks` }, { accept: BROWSER_ACCEPT, headers: { origin: EVIL }, ...visitor() });
    assert.equal(posted.status, 303);
    assert.equal(posted.headers.get('location'), `${EVIL}/thanks`);
    const own = await post(app, formId, { message: 'hi' }, { accept: BROWSER_ACCEPT, headers: { origin: EVIL }, ...visitor() });
    assert.equal(own.headers.get('location'), `${EVIL}/landing`, "a POST follows the owner's redirect as before");
  });

  it('its thank-you page shows only the built-in wording: the Settings wording and `_feedback.*` are not shown', async () => {
    const formId = await formOf(stranger, { thanksTitle: LURE, thanksMessage: 'Log in at evil.example', allowedOrigins: [EVIL] });
    const direct = await open(`${formId}/thanks`, visitor());
    assert.equal(direct.status, 200);
    assert.match(direct.body, /<h1>Thank you!<\/h1>/);
    assert.doesNotMatch(direct.body, /mailbox is locked|evil\.example/);

    const from = visitor();
    const linked = await open(`${formId}?m=1&_feedback.success.title=${encodeURIComponent(LURE)}`, from, { referer: `${EVIL}/page` });
    assert.equal(linked.status, 303);
    const thanks = await request('GET', linked.headers.get('location')!, null, { accept: BROWSER_ACCEPT }, from.localAddress);
    assert.match(thanks.body, /<h1>Thank you!<\/h1>/);
    assert.doesNotMatch(thanks.body, /mailbox is locked/);
  });

  it("the admin's workspace, and a stranger's the admin upgraded, redirect GET links and show their wording as before", async () => {
    const adminForm = await formOf(admin, { redirectUrl: 'https://www.operator.example/thanks', thanksTitle: 'Thanks from us' });
    const mine = await open(`${adminForm}?utm=1`, visitor());
    assert.equal(mine.status, 303);
    assert.equal(mine.headers.get('location'), 'https://www.operator.example/thanks');

    const trusted = await createAccount(app, { plan: 'FREE' });
    const formId = await formOf(trusted, { redirectUrl: `${EVIL}/landing`, thanksTitle: 'Thanks from a customer' });
    assert.equal((await open(`${formId}?utm=1`, visitor())).status, 200, 'not vouched for yet');
    await app.ctx.workspaces.setPlan(trusted.workspaceId, 'BUNDLE_50000', { tellOwners: false });
    const vouched = await open(`${formId}?utm=1`, visitor());
    assert.equal(vouched.status, 303);
    assert.equal(vouched.headers.get('location'), `${EVIL}/landing`);
    assert.match((await open(`${formId}/thanks`, visitor())).body, /<h1>Thanks from a customer<\/h1>/);
  });
});
