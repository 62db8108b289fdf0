import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { launchBrowser, needsChromium, newPage } from '../helpers/browser.js';
import { signUp } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';
import { postJson, visitorAddresses } from '../helpers/submit.js';

const PASSWORD = 'correct horse battery';
const visitor = visitorAddresses(71);
const LONG_ADDRESS = 'a.very.long.address.of.someone@a-subdomain.of-an-example-company-with-a-long-name.example.com';
const UNBROKEN = `https://example.com/${'path-without-any-break-'.repeat(12)}end`;

/**
 * Issue 41, item 4: no page of the dashboard scrolls sideways at 390 or 1280 px, with the long values
 * real accounts have (long names and addresses, a link with no place to break) on every page that
 * shows them. Each page's own test checks it too (checkPage); this one walks them all in one place.
 */
describe(`dashboard in Chromium: no page scrolls sideways (${TEST_DIALECT})`, { skip: needsChromium }, () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let pages: string[];

  before(async () => {
    app = await startApp();
    browser = await launchBrowser();
    page = await newPage(browser);
    await signUp(page, app, 'owner@example.com', PASSWORD);
    const user = await app.ctx.users.requireByEmail('owner@example.com');
    const w = new URL(page.url()).pathname.split('/')[2]!;
    await app.ctx.workspaces.renameWorkspace(user.id, w, 'The workspace of an agency with a rather long name for its many clients');
    const member = await app.ctx.users.createUser(LONG_ADDRESS, PASSWORD);
    await app.ctx.workspaces.addMember(w, member.user.email);
    const f = (
      await app.ctx.forms.createForm(user.id, w, {
        name: 'A contact form with a long name, for the spring campaign of a client',
        notificationEmails: [LONG_ADDRESS],
        webhookUrl: UNBROKEN,
      })
    ).id;
    const posted = await postJson(app, f, { name: 'Someone With A Long Name', email: LONG_ADDRESS, website: UNBROKEN, message: `See ${UNBROKEN}` }, visitor());
    assert.equal(posted.status, 200);
    const s = posted.body.id as string;
    // a destination's page: a long table name, and a field whose long name is a row of its mapping
    await postJson(app, f, { [`field-${'without-a-break-'.repeat(6)}end`]: 'x' }, visitor());
    const d = await app.ctx.destinations.addForMember(user.id, f, 'airtable', {
      baseId: 'appABCDEFGHIJ1234',
      table: UNBROKEN.slice(0, 250),
      secret: `patAbCdEfGh123456.${'a'.repeat(64)}`,
    });
    const label = await app.ctx.labels.create(user.id, w, { name: 'A label of forty characters, the most!!', color: 'purple' });
    await app.ctx.labels.setLabels(user.id, s, [label.id]);
    await app.ctx.triage.update({ id: user.id }, s, { assigneeId: member.user.id });
    pages = [
      '/',
      '/workspaces',
      '/workspaces/new',
      '/account',
      '/account/tokens',
      '/admin',
      `/w/${w}`,
      `/w/${w}/submissions`,
      `/w/${w}/submissions?state=all`,
      `/w/${w}/settings`,
      `/w/${w}/members`,
      `/w/${w}/labels`,
      `/w/${w}/forms/new`,
      `/w/${w}/erase`,
      `/w/${w}/delete`,
      `/forms/${f}`,
      // the reading pane beside the list, and alone below 1100 px (issue 41, item 2)
      `/forms/${f}?submission=${s}`,
      `/w/${w}/submissions?state=all&submission=${s}`,
      `/forms/${f}/setup`,
      `/forms/${f}/settings`,
      `/forms/${f}/spam`,
      `/forms/${f}/held`,
      `/forms/${f}/templates`,
      `/forms/${f}/templates/notification`,
      `/forms/${f}/deliveries`,
      `/forms/${f}/delete`,
      `/forms/${f}/destinations/${d}`,
      `/submissions/${s}`,
    ];
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  /** How far the page scrolls sideways at `width`, and the widest element past the edge, to name it. */
  async function overflowAt(path: string, width: number): Promise<string | null> {
    await page.setViewportSize({ width, height: 900 });
    const answer = await page.goto(`${app.publicUrl}${path}`);
    assert.equal(answer?.status(), 200, path);
    return page.evaluate(() => {
      const root = document.documentElement;
      const extra = root.scrollWidth - root.clientWidth;
      if (extra <= 0) return null;
      const widest = [...document.querySelectorAll('body *')].find((el) => el.getBoundingClientRect().right > root.clientWidth + 1);
      return `${extra} px (${widest?.tagName.toLowerCase()}.${widest?.className || ''})`;
    });
  }

  it('fits every page at 390 and 1280 px', async () => {
    const problems: string[] = [];
    for (const path of pages) {
      for (const width of [390, 1280]) {
        const overflow = await overflowAt(path, width);
        if (overflow) problems.push(`${path} at ${width} px: ${overflow}`);
      }
    }
    assert.deepEqual(problems, []);
  });
});
