import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import { validationError } from '../errors.js';
import type { Access, FormService } from './forms.js';
import { neutraliseFormula } from './csv-formulas.js';
import { type Cell, flattenFields } from './export-fields.js';
import { type Keyset, nextOf } from './pagination.js';
import type { SubmissionFilter, SubmissionListRow } from './submission-search.js';
import { type SubmissionScope, type SubmissionService, submissionJson } from './submissions.js';
import { requireUpgraded, type WorkspaceService } from './workspaces.js';

export const EXPORT_FORMATS = ['csv', 'json'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** Rows fetched per query: the most an export ever holds at once. */
export const EXPORT_PAGE_SIZE = 500;
/** Field columns of a CSV export at most; the fields past them share one last column, as JSON. */
export const MAX_FIELD_COLUMNS = 1000;
/** That last column's name: field names starting with `_` are control fields, never data, so no field has it. */
export const OTHER_FIELDS_COLUMN = '_other_fields';
/** The columns before the fields, in every CSV export. */
export const LEADING_COLUMNS = ['id', 'createdAt', 'formId'] as const;

export interface SubmissionExport {
  /** The form's or workspace's name, for the file's name. */
  title: string;
  /** The file, produced as it is read (pull-driven: a slow reader holds back the queries). */
  body: Readable;
}

// RFC 4180: quote fields holding `,` `"` CR or LF (also with CRLF record ends, so set explicitly),
// CRLF between records. Formulas are neutralised by csv-formulas.ts before (csv-stringify's own
// escape_formulas looks at the first character only, and misses `=` behind a space or a BOM).
const CSV_OPTIONS = { record_delimiter: 'windows', quote_record_delimiter: true } as const;
const BOM = '\uFEFF';

/**
 * Exports of a form's or workspace's accepted submissions: the whole filtered set, newest first,
 * read page after page through the list itself (so the same rows, order and access as the list),
 * never more than one page in memory.
 */
export class ExportService {
  constructor(
    private readonly submissions: SubmissionService,
    private readonly forms: FormService,
    private readonly workspaces: WorkspaceService,
  ) {}

  /**
   * Checks access and reads the first rows before returning, so that a refusal or a failure there is
   * an ordinary error answer; a failure later errors the stream (the caller must then cut the
   * connection, so that no truncated file looks complete).
   */
  async exportSubmissions(
    userId: string,
    scope: SubmissionScope,
    format: ExportFormat,
    filter: SubmissionFilter = {},
    access: Access = {},
  ): Promise<SubmissionExport> {
    if (filter.from !== undefined && filter.to !== undefined && filter.from >= filter.to) {
      throw validationError(['to: must be later than from'], 'The time range is empty.');
    }
    const title = await this.titleOf(userId, scope, access);
    const walk = (start: Keyset | null) => this.pages(userId, scope, filter, access, start);
    const chunks = format === 'json' ? jsonChunks(await opened(walk(null))) : await this.csvChunks(walk);
    // bytes, not objects: the buffer holds at most one chunk (a page) ahead of the reader
    return { title, body: Readable.from(chunks, { objectMode: false }) };
  }

  private async titleOf(userId: string, scope: SubmissionScope, access: Access): Promise<string> {
    if ('formId' in scope) return (await this.forms.formForMember(userId, scope.formId, access)).name;
    const workspace = await this.workspaces.getForMember(userId, scope.workspaceId);
    if (access.api) requireUpgraded(workspace, this.workspaces.plans);
    return workspace.name;
  }

  /** Page after page of the list, from just after `start`. */
  private async *pages(userId: string, scope: SubmissionScope, filter: SubmissionFilter, access: Access, start: Keyset | null) {
    let after = start;
    for (;;) {
      const page = await this.submissions.listSubmissions(userId, scope, { limit: EXPORT_PAGE_SIZE, after }, filter, access);
      if (page.rows.length > 0) yield page.rows;
      const next = nextOf(page);
      if (!next) return;
      after = next;
    }
  }

  /**
   * CSV needs its columns before its first row: a first walk collects the field names only, the
   * second writes the rows, of the same set (rows that came in between are left out: the export is
   * of the set as the first walk saw it).
   */
  private async csvChunks(walk: (start: Keyset | null) => AsyncGenerator<SubmissionListRow[]>): Promise<AsyncGenerator<string>> {
    const names = new Set<string>();
    let overflow = false;
    let newest: Keyset | null = null;
    for await (const rows of walk(null)) {
      newest ??= { createdAt: rows[0]!.createdAt, id: rows[0]!.id };
      for (const row of rows) {
        for (const name of flattenFields(dataOf(row)).keys()) {
          if (names.has(name)) continue;
          if (names.size < MAX_FIELD_COLUMNS) names.add(name);
          else overflow = true;
        }
      }
    }
    const columns = [...names];
    const header = [...LEADING_COLUMNS, ...columns, ...(overflow ? [OTHER_FIELDS_COLUMN] : [])];
    // from just above the newest row the first walk saw (every row of its millisecond included)
    const start = newest && { createdAt: newest.createdAt + 1, id: '' };
    const rows = newest ? await opened(walk(start)) : null;
    return csvBody(header, columns, overflow, rows, newest);
  }
}

async function* csvBody(
  header: string[],
  columns: string[],
  overflow: boolean,
  pages: AsyncGenerator<SubmissionListRow[]> | null,
  newest: Keyset | null,
): AsyncGenerator<string> {
  // field names are escaped like values: a header cell can be a formula too
  yield BOM + stringify([header.map(neutraliseFormula)], CSV_OPTIONS);
  if (!pages || !newest) return;
  for await (const rows of pages) {
    const records: Cell[][] = [];
    for (const row of rows) {
      if (newerThan(row, newest)) continue;
      records.push(csvRecord(row, columns, overflow));
    }
    if (records.length > 0) yield stringify(records, CSV_OPTIONS);
  }
}

function csvRecord(row: SubmissionListRow, columns: string[], overflow: boolean): Cell[] {
  const cells = flattenFields(dataOf(row));
  const record: Cell[] = [row.id, new Date(row.createdAt).toISOString(), row.formId];
  for (const name of columns) {
    record.push(neutraliseFormula(cells.get(name) ?? ''));
    cells.delete(name);
  }
  // NOTE: the rows are those the first walk saw, so whatever is left of their fields is past the cap
  if (overflow) record.push(cells.size > 0 ? JSON.stringify(Object.fromEntries(cells)) : '');
  return record;
}

/** A JSON array of the API's Submission resources, `data` as stored; `]` only when every row is out. */
async function* jsonChunks(pages: AsyncGenerator<SubmissionListRow[]>): AsyncGenerator<string> {
  let first = true;
  for await (const rows of pages) {
    yield `${first ? '[\n' : ',\n'}${rows.map(submissionJson).join(',\n')}`;
    first = false;
  }
  yield first ? '[]\n' : '\n]\n';
}

/** Starts a walk: its first page is read now, so that a refusal or failure there is thrown to the caller. */
async function opened<T>(pages: AsyncGenerator<T>): Promise<AsyncGenerator<T>> {
  const first = await pages.next();
  return (async function* () {
    if (first.done) return;
    yield first.value;
    yield* pages;
  })();
}

function dataOf(row: SubmissionListRow): unknown {
  return typeof row.data === 'string' ? JSON.parse(row.data) : row.data;
}

function newerThan(row: Keyset, than: Keyset): boolean {
  return row.createdAt > than.createdAt || (row.createdAt === than.createdAt && row.id > than.id);
}
