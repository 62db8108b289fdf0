import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium, newPage } from '../helpers/browser.js';
import { logIn } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { insertSubmission } from '../helpers/export.js';
import { postJson } from '../helpers/submit.js';

const PASSWORD = 'correct horse battery';

/**
 * What team mode never says (issue 41, item 16): the Free plan, any plan's name or the word plan,
 * Change plan, and the allowance (its sentences all name it: "used its allowance", "held past the allowance").
 */
const PLAN_WORDS: [string, RegExp][] = [
  ['Free', /\bFree\b/],
  ['plan', /\bplans?\b/i],
  ['allowance', /allowance/i],
  ['upgrade', /\bupgrad/i],
  ['Unlimited', /\bUnlimited\b/],
  ['submissions left', /submissions? left/i],
];

function planWordsIn(text: string): string[] {
  const found: string[] = [];
  for (const [word, pattern] of PLAN_WORDS) {
    const match = pattern.exec(text);
    if (match) found.push(`${word}: …${text.slice(Math.max(0, match.index - 50), match.index + 50).replace(/\s+/g, ' ')}…`);
  }
  return found;
}

/** Everything the page says, hidden parts included (the closed switcher, a select's options), and its title. */
async function pageText(page: Page): Promise<string> {
  return page.evaluate(() => `${document.title}\n${document.body.textContent ?? ''}`);
}

interface Installation {
  app: TestApp;
  workspaceId: string;
  formId: string;
  submissionId: string;
  spamId: string;
}

/** An installation in `usage` mode: the admin's workspace "Acme" on FREE, a member, a form with an accepted and a spam submission. */
async function installation(usage: 'team' | 'hosting'): Promise<Installation> {
  const app = await startApp();
  const { user, workspace } = await app.ctx.setup.setUp('admin@example.com', PASSWORD, usage, 'Acme');
  const member = await app.ctx.users.createUser('member@example.com', PASSWORD, undefined, 'Member’s own');
  await app.ctx.workspaces.addMember(workspace.id, member.user.email);
  const form = await app.ctx.forms.createForm(user.id, workspace.id, { name: 'Contact', notificationEmails: ['admin@example.com'] });
  const accepted = await postJson(app, form.id, { name: 'Ann', email: 'ann@example.com', message: 'Hello there' });
  assert.equal(accepted.status, 200);
  const spam = await insertSubmission(app, form, { name: 'Spammer', message: 'cheap pills' }, Date.now(), 'spam');
  return { app, workspaceId: workspace.id, formId: form.id, submissionId: accepted.body.id, spamId: spam };
}

/** The pages a team's people see, each with what to do on it before reading it. */
function pagesOf({ workspaceId: w, formId: f, submissionId: s, spamId }: Installation): [string, string][] {
  return [
    ['workspace', `/w/${w}`],
    ['workspaces', '/workspaces'],
    ['new workspace', '/workspaces/new'],
    ['workspace settings', `/w/${w}/settings`],
    ['members', `/w/${w}/members`],
    ['new form', `/w/${w}/forms/new`],
    ['erase a person', `/w/${w}/erase`],
    ['delete the workspace', `/w/${w}/delete`],
    ['all submissions', `/w/${w}/submissions`],
    ['form inbox', `/forms/${f}`],
    ['form setup', `/forms/${f}/setup`],
    ['form settings', `/forms/${f}/settings`],
    ['templates', `/forms/${f}/templates`],
    ['autoresponder', `/forms/${f}/templates/autoresponder`],
    ['deliveries', `/forms/${f}/deliveries`],
    ['held', `/forms/${f}/held`],
    ['delete the form', `/forms/${f}/delete`],
    ['a submission', `/submissions/${s}`],
    ['account', '/account'],
    ['API tokens', '/account/tokens'],
    ['spam folder', `/forms/${f}/spam`],
    ['a spam submission', `/submissions/${spamId}`],
  ];
}

describe(`dashboard in Chromium: team mode speaks no plans, hosting mode still does (${TEST_DIALECT})`, { skip: needsChromium }, () => {
  let browser: Browser;

  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });

  it('team mode: no page an owner or a member sees says Free, plan, allowance or upgrade, and no email does', async () => {
    const team = await installation('team');
    const { app } = team;
    try {
      const owner = await newPage(browser);
      await logIn(owner, app, 'admin@example.com', PASSWORD);
      // a test submission's result page, and an erasure's confirmation
      await owner.goto(`${app.publicUrl}/forms/${team.formId}/setup`);
      await Promise.all([owner.waitForURL(/\/test-submission\//), owner.getByRole('button', { name: 'Send a test submission' }).click()]);
      const found: string[] = planWordsIn(await pageText(owner)).map((w) => `test submission result: ${w}`);
      await owner.goto(`${app.publicUrl}/w/${team.workspaceId}/erase`);
      await owner.getByLabel('Email address').fill('ann@example.com');
      await Promise.all([owner.waitForResponse((r) => r.request().method() === 'POST'), owner.getByRole('button', { name: 'Find submissions' }).click()]);
      found.push(...planWordsIn(await pageText(owner)).map((w) => `erasure confirmation: ${w}`));
      // the one page that shows a new token
      await owner.goto(`${app.publicUrl}/account/tokens`);
      await owner.getByLabel('Name').fill('ci');
      await owner.getByLabel('forms:read').check();
      await owner.getByLabel('Current password').fill(PASSWORD);
      await Promise.all([owner.waitForResponse((r) => r.request().method() === 'POST'), owner.getByRole('button', { name: 'Create token' }).click()]);
      await owner.getByRole('heading', { name: 'Your new token “ci”' }).waitFor();
      found.push(...planWordsIn(await pageText(owner)).map((w) => `new token: ${w}`));

      for (const [name, path] of pagesOf(team)) {
        const answer = await owner.goto(`${app.publicUrl}${path}`);
        assert.equal(answer?.status(), 200, `${name} (${path})`);
        found.push(...planWordsIn(await pageText(owner)).map((w) => `${name}: ${w}`));
      }
      // the admin page, but for its choice between the two modes (which describes hosting's plans)
      await owner.goto(`${app.publicUrl}/admin`);
      const admin = await owner.evaluate(() => {
        const usage = document.getElementById('usage');
        const text = document.body.textContent ?? '';
        return usage ? text.replace(usage.textContent ?? '', '') : text;
      });
      found.push(...planWordsIn(admin).map((w) => `admin: ${w}`));
      assert.equal(await owner.getByRole('button', { name: 'Change plan' }).count(), 0);

      // the switcher says whose each workspace is, never its plan
      await owner.getByText('Workspace: Acme').click();
      const switcher = owner.getByRole('list', { name: 'Your workspaces' });
      assert.deepEqual(await switcher.getByRole('link').allTextContents(), ['AcmeYours']);

      await owner.goto(`${app.publicUrl}/w/${team.workspaceId}`);
      const usage = owner.getByRole('region', { name: 'Usage' });
      assert.ok(await usage.getByText('Submissions received').isVisible());
      await checkPage(owner, 'team-mode-workspace');
      await owner.goto(`${app.publicUrl}/workspaces`);
      assert.deepEqual(await owner.getByRole('columnheader').allTextContents(), ['Name', 'Submissions received', 'Your role']);
      await checkPage(owner, 'team-mode-workspaces');
      await owner.goto(`${app.publicUrl}/w/${team.workspaceId}/settings`);
      await checkPage(owner, 'team-mode-workspace-settings');

      // a member of the team: their switcher and their pages
      const member = await newPage(browser);
      await logIn(member, app, 'member@example.com', PASSWORD);
      for (const path of [`/w/${team.workspaceId}`, `/w/${team.workspaceId}/members`, `/w/${team.workspaceId}/settings`, '/workspaces']) {
        await member.goto(`${app.publicUrl}${path}`);
        found.push(...planWordsIn(await pageText(member)).map((w) => `member at ${path}: ${w}`));
      }
      await member.getByText('Workspace: Acme').click();
      const theirs = await member.getByRole('list', { name: 'Your workspaces' }).getByRole('link').allTextContents();
      assert.deepEqual(theirs.sort(), ['AcmeOwner: admin@example.com', 'Member’s ownYours']);

      // emails: an invitation goes out; a plan change (the admin vouching for a workspace) tells no one
      await owner.goto(`${app.publicUrl}/w/${team.workspaceId}/members`);
      await owner.getByLabel('Email address').fill('newcomer@example.com');
      await Promise.all([owner.waitForResponse((r) => r.request().method() === 'POST'), owner.getByRole('button', { name: 'Invite' }).click()]);
      const emailsBefore = await app.ctx.database.db.selectFrom('jobs').select('id').where('kind', '=', 'email').execute();
      await app.ctx.workspaces.setPlan(team.workspaceId, 'BUNDLE_50000');
      const emails = await app.ctx.database.db.selectFrom('jobs').select(['id', 'payload']).where('kind', '=', 'email').execute();
      assert.equal(emails.length, emailsBefore.length, 'no plan-change email in team mode');
      assert.ok(emails.length >= 1, 'the invitation');
      for (const email of emails) {
        const payload = (typeof email.payload === 'string' ? JSON.parse(email.payload) : email.payload) as { subject: string; text: string };
        found.push(...planWordsIn(`${payload.subject}\n${payload.text}`).map((w) => `email "${payload.subject}": ${w}`));
      }
      assert.deepEqual(found, []);
    } finally {
      await app.close();
    }
  });

  it('hosting mode: the same pages still name the plan and its allowance', async () => {
    const hosting = await installation('hosting');
    const { app } = hosting;
    try {
      const owner = await newPage(browser);
      await logIn(owner, app, 'admin@example.com', PASSWORD);
      await owner.goto(`${app.publicUrl}/w/${hosting.workspaceId}`);
      const plan = owner.getByRole('region', { name: 'Plan and allowance' });
      assert.ok(await plan.getByText('Free', { exact: true }).isVisible());
      assert.ok(await plan.getByText('Submissions left').isVisible());
      await owner.getByText('Workspace: Acme').click();
      assert.deepEqual(await owner.getByRole('list', { name: 'Your workspaces' }).getByRole('link').allTextContents(), ['AcmeYours · Free']);
      await owner.goto(`${app.publicUrl}/workspaces`);
      assert.deepEqual(await owner.getByRole('columnheader').allTextContents(), ['Name', 'Plan', 'Submissions left', 'Your role']);
      await owner.goto(`${app.publicUrl}/w/${hosting.workspaceId}/settings`);
      assert.ok(await owner.getByRole('region', { name: 'Plan and allowance' }).isVisible());
      await owner.goto(`${app.publicUrl}/forms/${hosting.formId}/setup`);
      assert.ok(await owner.getByText('it counts against the workspace’s allowance', { exact: false }).isVisible());
      await owner.goto(`${app.publicUrl}/admin`);
      assert.ok((await owner.getByRole('button', { name: 'Change plan' }).count()) > 0);
      await owner.goto(`${app.publicUrl}/forms/${hosting.formId}/settings`);
      assert.match(await pageText(owner), /Your plan allows up to 10 MB a file/);

      const emailsBefore = (await app.ctx.database.db.selectFrom('jobs').select('id').where('kind', '=', 'email').execute()).length;
      await app.ctx.workspaces.setPlan(hosting.workspaceId, 'BUNDLE_50000');
      const emails = await app.ctx.database.db.selectFrom('jobs').select('id').where('kind', '=', 'email').execute();
      assert.equal(emails.length, emailsBefore + 1, 'the owner is told of the plan change');
    } finally {
      await app.close();
    }
  });
});
