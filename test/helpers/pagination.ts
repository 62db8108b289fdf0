import assert from 'node:assert/strict';
import type { TestApp } from './app.js';
import { assertJson } from './problems.js';

/**
 * Follows `nextCursor` from the first page of `path` (relative to `{base_url}`, may carry a query)
 * until `hasMore` is false, at most `maxPages` pages; returns the ids seen and the page count.
 */
export async function walkPages(app: TestApp, token: string, path: string, limit: number, maxPages = 10): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const after: string = cursor === null ? '' : `&startingAfter=${encodeURIComponent(cursor)}`;
    const page = await app.api('GET', `${path}${path.includes('?') ? '&' : '?'}limit=${limit}${after}`, { token });
    assertJson(page, 200);
    pages++;
    ids.push(...page.body.data.map((item: { id: string }) => item.id));
    assert.equal(page.body.hasMore, page.body.nextCursor !== null);
    cursor = page.body.nextCursor;
  } while (cursor !== null && pages < maxPages);
  return { ids, pages };
}
