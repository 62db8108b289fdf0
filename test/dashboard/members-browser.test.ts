import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium, newPage } from '../helpers/browser.js';
import { logIn, signUp } from '../helpers/dashboard.js';
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js';

/** The invitation link of the `n`th email the sink received, after checking whom it went to. */
async function emailedLink(sink: SmtpSink, n: number, to: string): Promise<string> {
  const mail = (await sink.waitFor(n))[n - 1]!;
  assert.deepEqual(mail.envelopeTo, [to]);
  assert.equal(mail.parsed.subject, 'owner@example.com invited you to a workspace on Formgate');
  const link = /(http:\/\/\S+\/invitations\/[A-Za-z0-9_-]{43})/.exec(mail.parsed.text ?? '');
  assert.ok(link, mail.parsed.text);
  return link[1]!;
}

async function openMembers(page: Page): Promise<void> {
  await Promise.all([page.waitForURL(/\/members$/), page.getByRole('link', { name: 'Members', exact: true }).click()]);
}

/** Invites through the form; answers the link the page shows once, to copy. */
async function inviteThrough(page: Page, email: string): Promise<string> {
  await page.getByLabel('Email address').fill(email);
  await Promise.all([page.waitForURL(/\/invitations$/), page.getByRole('button', { name: 'Invite', exact: true }).click()]);
  await page
    .getByRole('status')
    .filter({ hasText: `Invitation sent to ${email}` })
    .waitFor();
  return (await page.getByRole('region', { name: `Invitation link for ${email}` }).textContent())!.trim();
}

describe('dashboard in Chromium: inviting, joining and removing a member', { skip: needsChromium }, () => {
  let sink: SmtpSink;
  let app: TestApp;
  let browser: Browser;
  let owner: Page;
  let workspaceUrl: string;

  before(async () => {
    sink = await startSmtpSink();
    app = await startApp({ smtpUrl: sink.url }, { delivery: true });
    browser = await launchBrowser();
    owner = await newPage(browser);
    await signUp(owner, app, 'owner@example.com', 'owner password 1');
    workspaceUrl = owner.url();
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await sink?.close();
  });

  it('the owner invites by email; the invitee signs up from the emailed link, lands in the workspace, and is removed by the owner', async () => {
    await openMembers(owner);
    const shown = await inviteThrough(owner, 'newbie@example.com');
    await checkPage(owner, 'members-invitation-link');
    const link = await emailedLink(sink, 1, 'newbie@example.com');
    assert.equal(shown, link, 'the page shows the emailed link, to pass on where mail does not arrive');

    const invitee = await newPage(browser);
    await invitee.goto(link);
    await invitee.waitForURL(/\/signup\?invitation=/);
    await invitee.getByText('Create your account to join the workspace “My workspace”.').waitFor();
    assert.equal(await invitee.getByLabel('Email').inputValue(), 'newbie@example.com');
    assert.equal(await invitee.getByLabel('Email').getAttribute('readonly'), '');
    await checkPage(invitee, 'signup-invitation');
    await invitee.getByLabel('Password').fill('newbie password 1');
    await Promise.all([invitee.waitForURL(workspaceUrl), invitee.getByRole('button', { name: 'Create account' }).click()]);
    await invitee.getByRole('status').filter({ hasText: 'You joined My workspace' }).waitFor();
    // one workspace, the team's: no second "My workspace" of their own, and the switcher says whose it is
    await invitee.getByText('Workspace: My workspace').click();
    const switcher = invitee.getByRole('list', { name: 'Your workspaces' });
    assert.deepEqual(await switcher.getByRole('link').allTextContents(), ['My workspaceOwner: owner@example.com · Free']);
    await invitee.keyboard.press('Escape');

    await openMembers(invitee);
    await invitee.getByRole('cell', { name: 'owner@example.com', exact: true }).waitFor();
    assert.equal(await invitee.getByRole('button', { name: 'Invite', exact: true }).count(), 0, 'members do not invite');
    await invitee.getByText('Only the workspace’s owners invite people. To add someone, ask owner@example.com.').waitFor();
    await checkPage(invitee, 'members-member');

    await owner.reload();
    await owner.getByRole('cell', { name: 'newbie@example.com', exact: true }).waitFor();
    await owner.getByText('2 of 5 members, counting pending invitations.').waitFor();
    await checkPage(owner, 'members-owner');
    await Promise.all([owner.waitForURL(/\/remove$/), owner.getByRole('link', { name: 'Remove newbie@example.com' }).click()]);
    await owner.getByRole('heading', { name: 'Remove newbie@example.com?' }).waitFor();
    await checkPage(owner, 'remove-member');
    await Promise.all([owner.waitForURL(/\/members$/), owner.getByRole('button', { name: 'Remove', exact: true }).click()]);
    await owner.getByRole('status').filter({ hasText: 'newbie@example.com removed' }).waitFor();
    assert.equal(await owner.getByRole('cell', { name: 'newbie@example.com', exact: true }).count(), 0);

    const next = await invitee.reload();
    assert.equal(next?.status(), 404, 'the removed member loses the workspace at the next request');
  });

  it('an account that exists opens the link after logging in, joins with one button, and can leave after a confirmation', async () => {
    await app.ctx.users.createUser('carol@example.com', 'carol password 1');
    await openMembers(owner);
    await inviteThrough(owner, 'carol@example.com');
    await owner.getByRole('button', { name: 'Revoke invitation to carol@example.com' }).waitFor();
    await checkPage(owner, 'members-owner-pending');
    const link = await emailedLink(sink, 2, 'carol@example.com');

    const carol = await newPage(browser);
    await logIn(carol, app, 'carol@example.com', 'carol password 1');
    await carol.goto(link);
    await carol.getByRole('heading', { name: 'Join My workspace' }).waitFor();
    await carol.getByText('owner@example.com invited you to join their team on Formgate.').waitFor();
    await checkPage(carol, 'invitation');
    await Promise.all([carol.waitForURL(workspaceUrl), carol.getByRole('button', { name: 'Join workspace' }).click()]);
    await carol.getByRole('status').filter({ hasText: 'You joined My workspace' }).waitFor();

    await openMembers(carol);
    await Promise.all([carol.waitForURL(/\/leave$/), carol.getByRole('link', { name: 'Leave workspace' }).click()]);
    await carol.getByRole('heading', { name: 'Leave My workspace?' }).waitFor();
    await checkPage(carol, 'leave-workspace');
    await Promise.all([
      carol.waitForURL((url) => url.pathname.startsWith('/w/') && url.href !== workspaceUrl),
      carol.getByRole('button', { name: 'Leave workspace' }).click(),
    ]);
    await carol.getByRole('status').filter({ hasText: 'You left My workspace' }).waitFor();
  });

  it('New link beside a pending invitation shows a fresh link to copy; the one before stops working', async () => {
    await openMembers(owner);
    const first = await inviteThrough(owner, 'dave@example.com');
    await openMembers(owner);
    await Promise.all([owner.waitForURL(/\/new-link$/), owner.getByRole('button', { name: 'New link for dave@example.com' }).click()]);
    await owner.getByRole('status').filter({ hasText: 'A new invitation was sent to dave@example.com; the earlier link no longer works' }).waitFor();
    const second = (await owner.getByRole('region', { name: 'Invitation link for dave@example.com' }).textContent())!.trim();
    assert.match(second, /\/invitations\/[A-Za-z0-9_-]{43}$/);
    assert.notEqual(second, first);

    const dave = await newPage(browser);
    await dave.goto(first);
    await dave.getByText('This invitation was withdrawn, or replaced by a newer one').waitFor();
    await dave.goto(second);
    await dave.waitForURL(/\/signup\?invitation=/);
    await dave.close();
  });
});
