import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium, newPage } from '../helpers/browser.js';
import { logIn, signedUpOwner } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { insertSubmissionWithFiles } from '../helpers/submission-files.js';

const PASSWORD = 'correct horse battery';

describe(`dashboard in Chromium: deleting a workspace (${TEST_DIALECT})`, { skip: needsChromium }, () => {
  let app: TestApp;
  let browser: Browser;

  before(async () => {
    app = await startApp();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  it('from its settings: what goes with it, the name typed again, then the dashboard offers a new workspace', async () => {
    const { page, userId, workspaceId } = await signedUpOwner(browser, app, 'owner@example.com', PASSWORD);
    await app.ctx.workspaces.renameWorkspace(userId, workspaceId, 'Acme Ltd');
    const form = await app.ctx.forms.createForm(userId, workspaceId, { name: 'Contact' });
    await insertSubmissionWithFiles(app, form, [{ field: 'cv', name: 'cv.pdf', type: 'application/pdf', bytes: 'x'.repeat(4096) }], {
      fields: { name: 'Ann' },
    });
    const member = await app.ctx.users.createUser('member@example.com', PASSWORD);
    await app.ctx.workspaces.addMember(workspaceId, member.user.email);

    await page.goto(`${app.publicUrl}/w/${workspaceId}/settings`);
    const panel = page.getByRole('region', { name: 'Delete workspace' });
    assert.ok(await panel.isVisible());
    await checkPage(page, 'workspace-settings-owner');
    await Promise.all([page.waitForURL(/\/delete$/), panel.getByRole('link', { name: 'Delete this workspace…' }).click()]);

    assert.ok(await page.getByRole('heading', { name: 'Delete “Acme Ltd”?', level: 1 }).isVisible());
    const goes = page.getByRole('region', { name: 'What goes with it' });
    assert.deepEqual(await goes.getByRole('listitem').allTextContents(), [
      '1 form, with its email templates, settings and secret keys',
      '1 submission (1 in the inbox, 0 spam)',
      '1 stored file (4 KB), removed from storage',
      '0 deliveries (email, webhook, Slack) waiting to go out: they are not sent',
      '1 other member of the team loses it; their accounts stay',
      '0 pending invitations: their links stop working',
    ]);
    await checkPage(page, 'workspace-delete');

    // a wrong name: the message beside the field, tied to it; nothing deleted
    await page.getByLabel('Name of the workspace').fill('Acme');
    await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.getByRole('button', { name: 'Delete workspace' }).click()]);
    const field = page.getByLabel('Name of the workspace');
    assert.equal(await field.getAttribute('aria-invalid'), 'true');
    assert.ok(await page.getByText('Type the workspace’s name exactly as it is written above, “Acme Ltd”, to delete it.').isVisible());
    assert.ok(await app.ctx.workspaces.requireById(workspaceId));
    await checkPage(page, 'workspace-delete-refused');

    await field.fill('Acme Ltd');
    await Promise.all([page.waitForURL(/\/workspaces\/new$/), page.getByRole('button', { name: 'Delete workspace' }).click()]);
    assert.ok(await page.getByRole('status').filter({ hasText: 'Workspace “Acme Ltd” deleted' }).isVisible());
    assert.ok(await page.getByRole('heading', { name: 'New workspace', level: 1 }).isVisible());
    await checkPage(page, 'workspace-deleted-last');
    await page.context().close();
  });

  it('a member sees no Delete panel, and the page itself is the 403 page', async () => {
    const owner = await app.ctx.users.createUser('second-owner@example.com', PASSWORD, undefined, 'Second');
    await app.ctx.users.createUser('second-member@example.com', PASSWORD);
    await app.ctx.workspaces.addMember(owner.workspace.id, 'second-member@example.com');
    const page = await newPage(browser);
    await logIn(page, app, 'second-member@example.com', PASSWORD);
    await page.goto(`${app.publicUrl}/w/${owner.workspace.id}/settings`);
    assert.equal(await page.getByRole('region', { name: 'Delete workspace' }).count(), 0);
    const answer = await page.goto(`${app.publicUrl}/w/${owner.workspace.id}/delete`);
    assert.equal(answer?.status(), 403);
    assert.ok(await page.getByText('Only the owners of Second can delete it.').isVisible());
    await page.context().close();
  });
});
