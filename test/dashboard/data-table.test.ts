import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { h } from 'preact';
import { renderToString } from 'preact-render-to-string';
import type { Browser, Page } from 'playwright-core';
import { type Column, DataTable } from '../../src/dashboard/views/data-table.js';
import { PagerLinks } from '../../src/dashboard/views/pager.js';
import { launchBrowser, needsChromium } from '../helpers/browser.js';

interface Person {
  id: string;
  email: string;
  role: string;
}

const PEOPLE: Person[] = [
  { id: 'p1', email: 'ada@example.com', role: 'Owner' },
  { id: 'p2', email: 'grace@example.com', role: 'Member' },
];

const COLUMNS: Column<Person>[] = [
  { label: 'Email', cell: (p) => p.email },
  { label: 'Role', class: 'role-cell', cell: (p) => p.role },
  { label: 'Actions', hideLabel: true, cell: (p) => h('a', { href: `/people/${p.id}/remove` }, 'Remove') },
];

function table(props: Partial<Parameters<typeof DataTable<Person>>[0]> = {}): string {
  return renderToString(h(DataTable<Person>, { label: 'Team', columns: COLUMNS, rows: PEOPLE, rowKey: (p) => p.id, ...props }));
}

const headers = (html: string) => [...html.matchAll(/<th scope="col"[^>]*>(.*?)<\/th>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, ''));
const rowLabels = (html: string) =>
  [...html.matchAll(/<tr>((?:(?!<\/tr>).)*)<\/tr>/g)].slice(1).map((row) => [...row[1]!.matchAll(/data-label="([^"]*)"/g)].map((m) => m[1]));

describe('DataTable', () => {
  it('writes the header row and every cell’s phone label from the one list of columns', () => {
    const html = table();
    assert.deepEqual(headers(html), ['Email', 'Role', 'Actions']);
    assert.deepEqual(rowLabels(html), [
      ['Email', 'Role', 'Actions'],
      ['Email', 'Role', 'Actions'],
    ]);
    assert.match(html, /^<div class="table-wrap"><table class="stack" aria-label="Team">/);
    assert.match(html, /<td data-label="Email">ada@example\.com<\/td><td data-label="Role" class="role-cell">Owner<\/td>/);
    assert.match(html, /<th scope="col" class="role-cell">Role<\/th>/, 'a column’s class is on its header too');
  });

  it('hides a label from sight only: the header keeps the text, its cells drop the phone label', () => {
    const html = table();
    assert.match(html, /<th scope="col"><span class="visually-hidden">Actions<\/span><\/th>/);
    assert.match(html, /<td data-label="Actions" class="unlabelled"><a href="\/people\/p1\/remove">Remove<\/a><\/td>/);
  });

  it('leaves out a column given as false, in the header and in every row', () => {
    const html = renderToString(h(DataTable<Person>, { label: 'Team', columns: [COLUMNS[0], false, COLUMNS[1]], rows: PEOPLE, rowKey: (p) => p.id }));
    assert.deepEqual(headers(html), ['Email', 'Role']);
    assert.deepEqual(rowLabels(html)[0], ['Email', 'Role']);
  });

  it('names a table by a visible caption; a table that does not stack writes no phone labels and may name rows', () => {
    const days: Column<{ day: string; count: number }>[] = [
      { label: 'Day', rowHeader: true, cell: (d) => d.day },
      { label: 'Count', cell: (d) => d.count },
    ];
    const html = renderToString(
      h(DataTable<{ day: string; count: number }>, {
        caption: 'Per day',
        columns: days,
        rows: [{ day: '1 Dec', count: 3 }],
        rowKey: (d) => d.day,
        stack: false,
      }),
    );
    assert.match(html, /<table><caption class="muted">Per day<\/caption>/);
    assert.match(html, /<tr><th scope="row">1 Dec<\/th><td>3<\/td><\/tr>/);
    assert.doesNotMatch(html, /data-label/);
  });
});

describe('PagerLinks', () => {
  it('links back to the first page and on to the next, with the texts a page gives; nothing on a single page', () => {
    assert.equal(renderToString(h(PagerLinks, { pager: { next: null, newest: null } })), '');
    assert.equal(
      renderToString(h(PagerLinks, { pager: { next: '/f?cursor=b', newest: '/f' } })),
      '<nav class="pager" aria-label="Pages"><a href="/f">Back to the newest</a><a href="/f?cursor=b">Next page</a></nav>',
    );
    assert.equal(
      renderToString(h(PagerLinks, { pager: { next: '/admin?accounts=x', newest: null }, label: 'Pages of accounts', nextText: 'Next page of accounts' })),
      '<nav class="pager" aria-label="Pages of accounts"><a href="/admin?accounts=x">Next page of accounts</a></nav>',
    );
  });
});

describe('DataTable in Chromium: names and phone labels as a reader meets them', { skip: needsChromium }, () => {
  let browser: Browser;
  let page: Page;
  before(async () => {
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 390, height: 800 } });
    const css = readFileSync('src/dashboard/assets/app.css', 'utf8');
    await page.setContent(`<!doctype html><html lang="en"><style>${css}</style><main>${table()}</main></html>`);
  });
  after(async () => {
    await browser?.close();
  });

  it('gives the hidden header its accessible name, and each cell its column', async () => {
    const teamTable = page.getByRole('table', { name: 'Team' });
    assert.deepEqual(await teamTable.getByRole('columnheader').allTextContents(), ['Email', 'Role', 'Actions']);
    assert.equal(await teamTable.getByRole('columnheader', { name: 'Actions', exact: true }).count(), 1);
    assert.ok(await teamTable.getByRole('cell', { name: 'ada@example.com' }).isVisible());
  });

  it('stacks each row as label: value at phone width, with no label before the unlabelled column', async () => {
    // NOTE: not `exact`: the generated label is part of the cell's accessible name at this width
    const before = (text: string) =>
      page
        .getByRole('cell', { name: text })
        .first()
        .evaluate((cell) => getComputedStyle(cell, '::before').content);
    assert.equal(await before('ada@example.com'), '"Email"');
    assert.equal(await before('Owner'), '"Role"');
    assert.equal(
      await page
        .getByRole('link', { name: 'Remove' })
        .first()
        .evaluate((a) => getComputedStyle(a.parentElement!, '::before').content),
      'none',
    );
  });
});

// The views others still write by hand; each leaves this list once it uses DataTable.
// the inbox's list of lines is a table of its own kind (a header for screen readers only, no stacking labels)
const HAND_WRITTEN_ALLOWED = new Set(['submission-list.tsx']);

describe('the dashboard’s tables', () => {
  it('take their phone labels from DataTable’s columns: no other view writes data-label by hand', () => {
    const dir = 'src/dashboard/views';
    const offenders = readdirSync(dir)
      .filter((file) => /\.tsx?$/.test(file) && file !== 'data-table.tsx' && !HAND_WRITTEN_ALLOWED.has(file))
      .filter((file) => /data-label[=\s]/.test(readFileSync(path.join(dir, file), 'utf8')));
    assert.deepEqual(offenders, [], 'use DataTable (views/data-table.tsx) for a table: it writes the header and each cell’s label from one column list');
  });
});
