import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import GithubSlugger from 'github-slugger';
import { type Token, type Tokens, lexer } from 'marked';
import { PROJECT_ROOT } from './helpers/cli.js';

// Issue 39, item 21: every link from one of the project's Markdown files to another file of the
// checkout, or to a heading or anchor of one, leads somewhere. Headings get the anchors GitHub gives
// them (github-slugger); `<a id="…">` anchors count too. Links to other sites are not followed.

/** The Markdown files of the checkout (git's list: no node_modules, nothing ignored). */
const MARKDOWN = execFileSync('git', ['ls-files', '*.md'], { cwd: PROJECT_ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);

interface Link {
  file: string;
  href: string;
}

const HTML_ANCHOR = /<a\s[^>]*?\b(?:id|name)="([^"]+)"/g;
const HTML_HREF = /<a\s[^>]*?\bhref="([^"]+)"/g;

/** The plain text of inline tokens, as GitHub reads a heading to make its anchor. */
function plainText(tokens: Token[] | undefined): string {
  return (tokens ?? [])
    .map((token) => {
      if ('tokens' in token && Array.isArray(token.tokens) && token.tokens.length > 0) return plainText(token.tokens);
      if (token.type === 'html') return '';
      return 'text' in token ? String(token.text) : '';
    })
    .join('');
}

/** Every token of a document, nested ones too (lists, tables, blockquotes, inline). */
function* walk(tokens: Token[]): Generator<Token> {
  for (const token of tokens) {
    yield token;
    if (token.type === 'table') {
      const table = token as Tokens.Table;
      for (const cell of [...table.header, ...table.rows.flat()]) yield* walk(cell.tokens);
    }
    if (token.type === 'list') for (const item of (token as Tokens.List).items) yield* walk(item.tokens);
    if ('tokens' in token && Array.isArray(token.tokens)) yield* walk(token.tokens);
  }
}

/** A document's anchors (its headings', GitHub style, and its HTML ones) and its links. */
function readDocument(file: string): { anchors: Set<string>; links: Link[] } {
  const tokens = lexer(fs.readFileSync(path.join(PROJECT_ROOT, file), 'utf8'));
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  const links: Link[] = [];
  for (const token of walk(tokens)) {
    if (token.type === 'heading') anchors.add(slugger.slug(plainText((token as Tokens.Heading).tokens)));
    if (token.type === 'link' || token.type === 'image') links.push({ file, href: (token as Tokens.Link).href });
    if (token.type === 'html') {
      const html = (token as Tokens.HTML).text;
      for (const [, id] of html.matchAll(HTML_ANCHOR)) anchors.add(id!);
      for (const [, href] of html.matchAll(HTML_HREF)) links.push({ file, href: href! });
    }
  }
  return { anchors, links };
}

const documents = new Map(MARKDOWN.map((file) => [file, readDocument(file)]));

/** Why `link` leads nowhere, or null when it leads somewhere (or elsewhere than this checkout). */
function brokenBecause({ file, href }: Link): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//')) return null;
  const [target = '', anchor] = href.split('#', 2);
  const resolved = target === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURI(target)));
  if (resolved.startsWith('..')) return null; // outside the checkout (the shared spec)
  if (!fs.existsSync(path.join(PROJECT_ROOT, resolved))) return `${resolved} does not exist`;
  if (anchor === undefined || !resolved.endsWith('.md')) return null;
  const anchors = documents.get(resolved)?.anchors;
  if (!anchors) return `${resolved} is not a Markdown file of the checkout`;
  return anchors.has(decodeURIComponent(anchor)) ? null : `${resolved} has no anchor #${anchor}`;
}

describe('the Markdown files’ links within the checkout', () => {
  it('reads README.md and every file of docs/', () => {
    assert.ok(MARKDOWN.includes('README.md'));
    assert.ok(MARKDOWN.filter((file) => file.startsWith('docs/')).length >= 10, MARKDOWN.join(', '));
  });

  it('finds the anchors GitHub makes of headings, and tells a broken link from a good one', () => {
    const { anchors } = documents.get('docs/submit.md')!;
    assert.ok(anchors.has('what-it-accepts') && anchors.has('allowed-origins'), [...anchors].join(' '));
    assert.equal(brokenBecause({ file: 'docs/errors.md', href: 'submit.md#what-it-accepts' }), null);
    assert.equal(brokenBecause({ file: 'README.md', href: 'docs/submit.md#no-such-heading' }), 'docs/submit.md has no anchor #no-such-heading');
    assert.equal(brokenBecause({ file: 'README.md', href: 'docs/nothing.md' }), 'docs/nothing.md does not exist');
    assert.equal(brokenBecause({ file: 'README.md', href: 'https://example.com/#x' }), null);
  });

  for (const [file, { links }] of documents) {
    it(`${file}: every link to the checkout leads somewhere`, () => {
      const broken = links.map((link) => ({ href: link.href, why: brokenBecause(link) })).filter((link) => link.why !== null);
      assert.deepEqual(broken, []);
    });
  }
});
