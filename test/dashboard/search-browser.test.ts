import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { idAt } from '../../src/ids.js';
import { SearchIndexer } from '../../src/jobs/search-indexer.js';
import { searchTextOf } from '../../src/services/search-text.js';
import { SEARCH_ROW_CAP } from '../../src/services/submission-search.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { checkPage, launchBrowser, needsChromium, newPage } from '../helpers/browser.js';
import { signUp } from '../helpers/dashboard.js';
import { TEST_DIALECT } from '../helpers/database.js';

const PASSWORD = 'correct horse battery';

// Issue 24: a search of a long list checks SEARCH_ROW_CAP rows a page (SQLite), and searches have
// their own rate limit. Both as a person sees them in the inbox.
describe(`dashboard in Chromium: a capped search and the search limit (${TEST_DIALECT})`, {
  skip: needsChromium || (TEST_DIALECT !== 'sqlite' && 'SQLite only: PostgreSQL does not cap a search'),
}, () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let formId: string;
  let match: string;

  before(async () => {
    app = await startApp({ rateLimitSearch: '4/1m' });
    browser = await launchBrowser();
    page = await newPage(browser);
    await signUp(page, app, 'owner@example.com', PASSWORD);
    const user = await app.ctx.users.requireByEmail('owner@example.com');
    const workspaceId = new URL(page.url()).pathname.split('/')[2]!;
    formId = (await app.ctx.forms.createForm(user.id, workspaceId, { name: 'Contact' })).id;
    // every row holds "blue" and "heron", apart; one row, older than the first page's share, holds "blue heron"
    const rows = SEARCH_ROW_CAP + 2_000;
    const t = Date.now() - 86_400_000;
    const ids: string[] = [];
    await app.ctx.database.transaction(async (trx) => {
      for (let start = 0; start < rows; start += 500) {
        const values = Array.from({ length: Math.min(500, rows - start) }, (_, k) => {
          const i = start + k;
          const data = { name: `Visitor ${i}`, message: i === 500 ? 'Saw a blue heron' : 'A heron, a blue sky' };
          const id = idAt(t + i);
          ids.push(id);
          return { id, formId, workspaceId, data: JSON.stringify(data), status: 'accepted' as const, createdAt: t + i, searchText: searchTextOf(data) };
        });
        await trx.insertInto('submissions').values(values).execute();
      }
    });
    match = ids[500]!;
    await new SearchIndexer(app.ctx.database).indexAll();
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  it('shows a page that searched its share without a match, and the next page with it, from the keyboard', async () => {
    await page.goto(`${app.publicUrl}/forms/${formId}`);
    await page.getByLabel('Search').fill('blue heron');
    await Promise.all([page.waitForURL(/search=blue/), page.getByLabel('Search').press('Enter')]);
    assert.ok(await page.getByText('Nothing matches among the submissions this page searched; the next page searches older ones.').isVisible());
    assert.equal(await page.getByRole('table').count(), 0);
    await checkPage(page, 'inbox-search-capped');

    const next = page.getByRole('link', { name: 'Next page' });
    await next.focus();
    await Promise.all([page.waitForURL(/cursor=/), page.keyboard.press('Enter')]);
    const rows = page.getByRole('table').getByRole('row');
    assert.equal(await rows.count(), 2, 'a header row and the match');
    assert.ok((await page.content()).includes(`submission=${match}`), 'its line opens it');
  });

  it('answers a search past the limit with a page that says when to try again', async () => {
    // two searches so far (a page and its next); two more are allowed, the fifth is refused
    for (let i = 0; i < 2; i++) await page.goto(`${app.publicUrl}/forms/${formId}?search=visitor`);
    const answer = await page.goto(`${app.publicUrl}/forms/${formId}?search=visitor`);
    assert.equal(answer?.status(), 429);
    assert.ok(Number(await answer?.headerValue('retry-after')) >= 1);
    assert.ok(await page.getByRole('heading', { name: 'Too many requests' }).isVisible());
    assert.ok(await page.getByText(/Too many searches; try again in \d+ seconds?\./).isVisible());
    await checkPage(page, 'inbox-search-rate-limited');
  });
});
