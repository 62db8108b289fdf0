import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium, newPage } from '../helpers/browser.js';
import { signUp } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';

const PASSWORD = 'correct horse battery';
const visitor = visitorAddresses(62);

describe(`dashboard in Chromium: the inbox, a submission, spam and Not spam (${TEST_DIALECT})`, { skip: needsChromium }, () => {
  let app: TestApp;
  let sink: SmtpSink;
  let browser: Browser;
  let page: Page;
  let formId: string;

  before(async () => {
    sink = await startSmtpSink();
    app = await startApp({ smtpUrl: sink.url, mailFrom: 'Forms <forms@mail.example.org>' }, { delivery: true });
    browser = await launchBrowser();
    page = await newPage(browser);
    await signUp(page, app, 'owner@example.com', PASSWORD);
    const user = await app.ctx.users.requireByEmail('owner@example.com');
    const workspaceId = new URL(page.url()).pathname.split('/')[2]!;
    formId = (await app.ctx.forms.createForm(user.id, workspaceId, { name: 'Contact', notificationEmails: ['team@example.com'] })).id;
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await sink?.close();
  });

  async function submit(fields: Record<string, unknown>): Promise<void> {
    const answer = await postJson(app, formId, fields, visitor());
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
  }

  it('sees a submission in the inbox, searches it, opens it and sees its delivery', async () => {
    await page.goto(`${app.publicUrl}/forms/${formId}`);
    assert.ok(await page.getByText('No submissions yet.').isVisible());
    await checkPage(page, 'inbox-empty');

    await submit({ name: 'Ada Lovelace', email: 'ada@example.com', message: 'Hello,\nI would like a quote for 40 chairs.\n\nThanks!' });
    await submit({ name: 'Grace Hopper', email: 'grace@example.com', message: 'x'.repeat(200), address: { city: 'Arlington', zip: '22201' } });
    await submit({ name: 'Émile Zola', email: 'emile@example.com', message: 'Bonjour', interests: ['Chairs', 'Tables'] });
    await sink.waitFor(3);

    await page.reload();
    const rows = page.getByRole('table').getByRole('row');
    assert.equal(await rows.count(), 4, 'a header row and three submissions');
    // a line each: who sent it and the first line of the message
    const grace = page.getByRole('row').filter({ has: page.getByRole('link', { name: /^Grace Hopper/ }) });
    assert.match(await grace.getByRole('cell').nth(2).innerText(), /^x{100}/);
    await checkPage(page, 'inbox-list');

    await page.getByLabel('Search').fill('lovelace');
    await Promise.all([page.waitForURL(/search=lovelace/), page.getByRole('button', { name: 'Filter' }).click()]);
    assert.equal(await rows.count(), 2);
    assert.ok(await page.getByRole('link', { name: /^Ada Lovelace/ }).isVisible());
    assert.equal(await page.getByLabel('Search').inputValue(), 'lovelace', 'the filter stays in the form and the address bar');
    assert.match((await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href')) ?? '', /format=csv&search=lovelace$/);
    await checkPage(page, 'inbox-search');

    // the line opens it in the reading pane; its page, with the deliveries, is a link away
    await Promise.all([page.waitForURL(/submission=/), rows.nth(1).getByRole('link').first().click()]);
    await Promise.all([page.waitForURL(/\/submissions\/[a-z2-7]+$/), page.getByRole('link', { name: /^Its deliveries and details/ }).click()]);
    assert.ok(await page.getByRole('heading', { name: 'Fields' }).isVisible());
    assert.ok(await page.getByRole('heading', { level: 1, name: 'Ada Lovelace' }).isVisible(), 'headed by who sent it (issue 41)');
    assert.equal(await page.getByText('Hello,\nI would like a quote for 40 chairs.', { exact: false }).count(), 1);
    const deliveries = page.getByRole('region', { name: 'Deliveries' });
    await eventually(async () => {
      await page.reload();
      return (await deliveries.getByText('Delivered').count()) === 1;
    }, 'the notification shown as delivered');
    assert.ok(await deliveries.getByText('to team@example.com').isVisible());
    await checkPage(page, 'submission-view');
    // the filter's verdict, folded: opened from the keyboard, it lists what was weighed (issue 40)
    await page.getByText('Why the spam filter let it in').focus();
    await page.keyboard.press('Enter');
    assert.ok(await page.getByText(/^learned filter: \d+% legitimate/).isVisible(), 'the learned filter’s reason is shown');
    await checkPage(page, 'submission-verdict');

    // a checkbox group's answers read as a set of choices, not a numbered list (issue 41)
    await page.goto(`${app.publicUrl}/forms/${formId}?search=zola`);
    // the line opens it in the reading pane; its page, with the deliveries, is a link away
    await Promise.all([page.waitForURL(/submission=/), rows.nth(1).getByRole('link').first().click()]);
    await Promise.all([page.waitForURL(/\/submissions\/[a-z2-7]+$/), page.getByRole('link', { name: /^Its deliveries and details/ }).click()]);
    assert.ok(await page.getByRole('heading', { level: 1, name: 'Émile Zola' }).isVisible());
    const choices = page.getByRole('list').filter({ hasText: 'Chairs' });
    assert.deepEqual(await choices.getByRole('listitem').allInnerTexts(), ['Chairs', 'Tables']);
    await checkPage(page, 'submission-choices');
  });

  it('a spam submission lands in the spam folder, and Not spam delivers it', async () => {
    const before = sink.messages.length;
    await submit({ name: 'Mallory', message: 'Look <script>steal()</script>' });
    await page.goto(`${app.publicUrl}/forms/${formId}/spam`);
    const row = page.getByRole('row', { name: /Mallory/ });
    assert.ok(await row.isVisible());
    await checkPage(page, 'spam-folder');

    // the folder's lines are the inbox's (issue 41): why it was caught is on its page
    await Promise.all([page.waitForURL(/\/submissions\/[a-z2-7]+$/), row.getByRole('link').click()]);
    assert.ok(await page.getByText('The spam filter caught it.').isVisible());
    const reason = page.getByRole('listitem').filter({ hasText: /script/i });
    assert.ok(await reason.first().isVisible(), 'the reason it was caught');
    await checkPage(page, 'submission-spam');
    await page.goBack();

    await row.getByRole('checkbox').check();
    await Promise.all([page.waitForURL(/\/spam$/), page.getByRole('button', { name: 'Not spam' }).click()]);
    assert.ok(await page.getByRole('status').filter({ hasText: 'Moved to the inbox; its deliveries are on their way' }).isVisible());
    assert.ok(await page.getByText('No spam caught.', { exact: false }).isVisible());
    const [mail] = (await sink.waitFor(before + 1)).slice(before);
    assert.deepEqual(mail!.envelopeTo, ['team@example.com']);
    assert.match(mail!.parsed.text ?? '', /Mallory/);

    await page.goto(`${app.publicUrl}/forms/${formId}?search=mallory`);
    assert.ok(await page.getByRole('link', { name: /^Mallory/ }).isVisible(), 'searchable in the inbox');
  });

  it('deletes two submissions from the keyboard, after the confirmation', async () => {
    await page.goto(`${app.publicUrl}/forms/${formId}`);
    const boxes = page.getByRole('checkbox', { name: /^Select the submission of / });
    const before = await boxes.count();
    await boxes.nth(0).focus();
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab');
    // from the first row's checkbox, Tab reaches its link, then the next row's checkbox
    await page.keyboard.press('Tab');
    await page.keyboard.press('Space');
    assert.ok(await boxes.nth(1).isChecked());
    await page.getByRole('button', { name: 'Delete', exact: true }).focus();
    await Promise.all([page.waitForURL(/\/submissions\/delete\?/), page.keyboard.press('Enter')]);
    assert.ok(await page.getByRole('heading', { name: 'Delete 2 submissions?' }).isVisible());
    assert.ok(await page.getByText('This cannot be undone.').isVisible());
    await checkPage(page, 'submissions-delete');
    await page.getByRole('button', { name: 'Delete 2 submissions' }).focus();
    await Promise.all([page.waitForURL(new RegExp(`/forms/${formId}$`)), page.keyboard.press('Enter')]);
    assert.ok(await page.getByRole('status').filter({ hasText: '2 submissions deleted' }).isVisible());
    assert.equal(await boxes.count(), before - 2);

    // the workspace's inbox, and a held submission's pages, for the screenshots
    const workspaceId = (await app.ctx.forms.getIntakeForm(formId))!.workspaceId;
    await page.goto(`${app.publicUrl}/w/${workspaceId}/submissions`);
    assert.ok(await page.getByRole('heading', { name: 'All submissions' }).isVisible());
    await checkPage(page, 'inbox-workspace');
    await app.ctx.database.db.updateTable('workspaces').set({ submissionsUsed: 250 }).where('id', '=', workspaceId).execute();
    await submit({ name: 'Late', message: 'Past the allowance' });
    await page.goto(`${app.publicUrl}/forms/${formId}`);
    await Promise.all([page.waitForURL(/\/held$/), page.getByRole('link', { name: '1 submission is held' }).click()]);
    assert.ok(await page.getByText('releases held submissions oldest first', { exact: false }).isVisible());
    await checkPage(page, 'held-list');
  });
});
