import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium, newPage } from '../helpers/browser.js';
import { signUp } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';

const PASSWORD = 'correct horse battery';
const visitor = visitorAddresses(63);

describe(`dashboard in Chromium: the cap on held submissions (${TEST_DIALECT})`, { skip: needsChromium }, () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let formId: string;
  let workspaceId: string;

  before(async () => {
    app = await startApp();
    browser = await launchBrowser();
    page = await newPage(browser);
    await signUp(page, app, 'owner@example.com', PASSWORD);
    const user = await app.ctx.users.requireByEmail('owner@example.com');
    workspaceId = new URL(page.url()).pathname.split('/')[2]!;
    await app.ctx.workspaces.setPlan(workspaceId, 'FREE');
    formId = (await app.ctx.forms.createForm(user.id, workspaceId, { name: 'Contact' })).id;
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  it('says on the held page how many can be held, and a visitor past the cap gets a page saying nothing was stored', async () => {
    await app.ctx.database.db.updateTable('workspaces').set({ submissionsUsed: 250 }).where('id', '=', workspaceId).execute();
    assert.equal((await postJson(app, formId, { message: 'held one' }, visitor())).status, 200);
    await page.goto(`${app.publicUrl}/forms/${formId}/held`);
    assert.ok(await page.getByText('The workspace holds at most 250 submissions this way.', { exact: false }).isVisible());
    await checkPage(page, 'held-cap');

    // fill the rest of the cap, then post as a visitor's browser would, from a plain HTML form
    await app.ctx.database.db.updateTable('submissions').set({ status: 'held' }).where('formId', '=', formId).execute();
    for (let n = 0; n < 249; n++) {
      const answer = await postJson(app, formId, { message: `held ${n} at ${n * 13}` }, visitor());
      assert.equal(answer.status, 200);
    }
    const site = await newPage(browser);
    await site.setContent(`<form method="post" action="${app.submitUrl}/${formId}"><input name="message" value="one too many"><button>Send</button></form>`);
    const [answer] = await Promise.all([site.waitForNavigation(), site.getByRole('button', { name: 'Send' }).click()]);
    assert.equal(answer?.status(), 403);
    assert.ok(await site.getByRole('heading', { name: 'Your submission was not accepted' }).isVisible());
    assert.ok(await site.getByText('nothing was stored', { exact: false }).isVisible());
    await checkPage(site, 'held-full-refusal');
  });
});
