import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium } from '../helpers/browser.js';
import { signedUpOwner } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { createToken } from '../helpers/fixtures.js';
import { loggedIn } from '../helpers/members.js';

const PASSWORD = 'correct horse battery';

/** Issue 43, item 4 in a browser: the workspace's audit log for its owner, filtered by the address bar, and the installation's for the admin. */
describe(`dashboard in Chromium: the audit log (${TEST_DIALECT})`, { skip: needsChromium }, () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let workspaceId: string;

  before(async () => {
    app = await startApp();
    browser = await launchBrowser();
    let userId: string;
    ({ page, userId, workspaceId } = await signedUpOwner(browser, app, 'owner@example.com', PASSWORD));
    await app.ctx.workspaces.setPlan(workspaceId, 'BUNDLE_50000', { tellOwners: false });
    // what an API client does, with a long user agent: the table's lines wrap, never the page
    const token = await createToken(app, userId, ['forms:write', 'forms:read', 'submissions:read']);
    const agent = {
      'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 an-integration/2.4.1',
    };
    const form = await app.api('POST', '/forms', { token, headers: agent, body: { workspaceId, name: 'Contact', notificationEmails: ['team@example.com'] } });
    assert.equal(form.status, 201);
    assert.equal((await app.api('PATCH', `/forms/${form.body.id}`, { token, headers: agent, body: { allowedOrigins: ['https://example.com'] } })).status, 200);
    assert.equal((await app.api('GET', `/forms/${form.body.id}/submissions/export?format=csv`, { token, headers: agent })).status, 200);
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  it('is reached from the workspace’s settings and lists who did what, from where', async () => {
    await page.goto(`${app.publicUrl}/w/${workspaceId}/settings`);
    await page.getByLabel('Name').fill('Acme support');
    await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Rename workspace' }).click()]);
    await Promise.all([page.waitForURL(/\/audit$/), page.getByRole('link', { name: 'Audit log' }).click()]);
    assert.ok(await page.getByRole('heading', { name: 'Audit log', level: 1 }).isVisible());
    const table = page.getByRole('table', { name: 'Audit events' });
    const first = (await table.getByRole('row').nth(1).innerText()).replace(/\s+/g, ' ');
    assert.match(first, /owner@example\.com.*workspace\.renamed.*Acme support.*Dashboard · 127\.0\.0\.1/);
    const all = (await table.innerText()).replace(/\s+/g, ' ');
    for (const action of ['submissions.exported', 'form.updated', 'form.created', 'workspace.created']) assert.ok(all.includes(action), `${action} is listed`);
    assert.match(all, /changed: allowedOrigins/);
    assert.ok(!all.includes('team@example.com'), 'what a setting was set to is not written, its name is');
    await checkPage(page, 'audit-log');
  });

  it('filters by what, who and when through the address bar, and says when nothing matches', async () => {
    await page.getByLabel('What').selectOption({ label: 'Forms and their settings' });
    await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Filter' }).click()]);
    assert.match(page.url(), /[?&]group=form(&|$)/);
    const rows = await page.getByRole('table', { name: 'Audit events' }).getByRole('row').allInnerTexts();
    assert.deepEqual(
      rows.slice(1).map((row) => /form\.\w+/.exec(row)?.[0]),
      ['form.updated', 'form.created'],
    );
    await page.getByLabel('Person').fill('someone-else@example.com');
    await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Filter' }).click()]);
    assert.ok(await page.getByText('No event matches this filter.').isVisible());
    await page.goto(`${app.publicUrl}/w/${workspaceId}/audit?from=2026-02-30`);
    assert.ok(await page.locator('#field-from-error').isVisible(), 'a day that does not exist is said beside its field');
    assert.ok(await page.getByText('Nothing is listed until the filter is corrected.').isVisible());
    await checkPage(page, 'audit-log-refused');
    await Promise.all([page.waitForURL(/\/audit$/), page.getByRole('link', { name: 'Clear' }).click()]);
  });

  it('refuses a member who is no owner, and shows the admin the whole installation', async () => {
    const member = await app.ctx.users.createUser('member@example.com', 'a long enough password');
    await app.ctx.workspaces.addMember(workspaceId, 'member@example.com');
    const client = await loggedIn(app, member.user.email);
    const refused = await client.get(`/w/${workspaceId}/audit`);
    assert.equal(refused.status, 403);
    assert.match(refused.html, /Only the owners of Acme support can read its audit log/);
    const settings = await client.get(`/w/${workspaceId}/settings`);
    assert.ok(!settings.html.includes(`/w/${workspaceId}/audit`), 'a member is not led to it');
    assert.equal((await client.get('/admin/audit')).status, 404);

    await page.goto(`${app.publicUrl}/admin`);
    await Promise.all([page.waitForURL(/\/admin\/audit$/), page.getByRole('link', { name: 'Audit log' }).click()]);
    const all = (await page.getByRole('table', { name: 'Audit events' }).innerText()).replace(/\s+/g, ' ');
    assert.match(all, /member\.added.*member@example\.com/);
    assert.match(all, /account\.created/);
    assert.match(all, /A command on the server|Formgate, on its own/);
    await checkPage(page, 'audit-log-admin');
  });
});
