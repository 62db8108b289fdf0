import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import type { SubmissionStatus } from '../../src/db/schema/submission.js';
import { newId } from '../../src/ids.js';
import { searchTextOf } from '../../src/services/search-text.js';
import type { TestApp } from './app.js';

export const BOM = '\uFEFF';

type FormRef = { id: string; workspaceId: string };

/** One submission written directly, so that its time and status are exact. */
export async function insertSubmission(
  app: TestApp,
  form: FormRef,
  data: Record<string, unknown>,
  createdAt: number,
  status: SubmissionStatus = 'accepted',
): Promise<string> {
  const id = newId();
  await app.ctx.database.db
    .insertInto('submissions')
    .values({ id, formId: form.id, workspaceId: form.workspaceId, data: JSON.stringify(data), status, createdAt, searchText: searchTextOf(data) })
    .execute();
  return id;
}

/**
 * `count` accepted submissions, one a millisecond from `start`, 1,000 a statement in one
 * transaction: 50,000 in seconds. `searchable: false` leaves their search text empty, which spares
 * the search indexes' work for tests that never search.
 */
export async function insertMany(
  app: TestApp,
  form: FormRef,
  count: number,
  dataOf: (i: number) => Record<string, unknown>,
  start: number,
  searchable = true,
): Promise<void> {
  await app.ctx.database.transaction(async (trx) => {
    for (let from = 0; from < count; from += 1000) {
      const rows = [];
      for (let i = from; i < Math.min(count, from + 1000); i++) {
        const data = dataOf(i);
        rows.push({
          id: newId(),
          formId: form.id,
          workspaceId: form.workspaceId,
          data: JSON.stringify(data),
          status: 'accepted' as const,
          createdAt: start + i,
          searchText: searchable ? searchTextOf(data) : '',
        });
      }
      await trx.insertInto('submissions').values(rows).execute();
    }
  });
}

export interface Download {
  status: number;
  headers: Headers;
  /** The body as UTF-8, a byte order mark kept (fetch's text() would drop it). */
  text: string;
}

/** GETs a URL and reads the whole body as sent. */
export async function download(url: string, headers: Record<string, string>): Promise<Download> {
  const response = await fetch(url, { headers, redirect: 'manual' });
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, text };
}

/** A CSV export's records, header first, after checking its byte order mark and CRLF line ends. */
export function csvRecords(text: string): string[][] {
  assert.ok(text.startsWith(BOM), 'starts with a UTF-8 byte order mark');
  const body = text.slice(BOM.length);
  assert.ok(body.endsWith('\r\n'), 'the last record ends with CRLF');
  return parse(body, { record_delimiter: '\r\n' }) as string[][];
}
