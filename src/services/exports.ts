import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import { withFileLinks } from '../domain/file-values.js';
import { LoopSlice } from '../domain/loop-slice.js';
import type { FileLinks } from '../files/signed-links.js';
import { validationError } from '../errors.js';
import type { Access, FormService } from './forms.js';
import { neutraliseFormula } from './csv-formulas.js';
import { type Cell, flattenFields } from './export-fields.js';
import { type Keyset, nextOf } from './pagination.js';
import type { SubmissionFilter, SubmissionListRow } from './submission-search.js';
import type { SubmissionFiles } from './submission-files.js';
import type { ExportTriage } from './triage.js';
import { type SubmissionScope, type SubmissionService, submissionJson } from './submissions.js';
import { requireUpgraded, type WorkspaceService } from './workspaces.js';
import type { AuditLog } from './audit-log.js';

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
/** The team's triage of each row, after its fields (issue 41, item 9): a field's column keeps its place. */
export const TRIAGE_COLUMNS = ['status', 'assignee', 'labels'] as const;

/** Where an export reads the triage of its rows (a query or two a page). */
export interface TriageSource {
  exportTriage(ids: readonly string[]): Promise<Map<string, ExportTriage>>;
}

type ExportRow = SubmissionListRow & { triage?: ExportTriage };

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
    private readonly audit: AuditLog,
    /**
     * The submissions' files and their links: the dashboard's exports link each file to the
     * dashboard's download (a person clicks it signed in), the API's keep the API's address (a
     * client holds a token). Without them, files are given as stored.
     */
    private readonly files: { files: SubmissionFiles; links: Pick<FileLinks, 'dashboardUrl'> } | null = null,
    /** Each row's status, assignee and labels: written after its fields; without it, none. */
    private readonly triage: TriageSource | null = null,
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
    const { title, workspaceId } = await this.titleOf(userId, scope, access);
    // one share of the loop for the whole export: every page read and every row written counts against it
    const slice = new LoopSlice();
    // the dashboard's links to files are written, not counted: the CSV's first walk (names only) needs none
    const walk = (start: Keyset | null, linked = true) => this.pages(userId, scope, filter, access, start, slice, linked);
    // the team's triage goes in the dashboard's exports; the API's stay the Submission resources as the API lists them
    const triaged = this.triage !== null && !access.api;
    const chunks = format === 'json' ? jsonChunks(await opened(walk(null)), slice) : await this.csvChunks(walk, slice, triaged);
    // recorded before a byte goes out: the filter's names and time range, never a search's words (they may be a visitor's)
    const target = 'formId' in scope ? { kind: 'form', id: scope.formId, name: title } : { kind: 'workspace', id: scope.workspaceId, name: title };
    await this.audit.record({ action: 'submissions.exported', workspaceId, target, details: { format, ...filterNames(filter) } });
    // bytes, not objects: the buffer holds at most one chunk (a page) ahead of the reader
    return { title, body: Readable.from(chunks, { objectMode: false }) };
  }

  private async titleOf(userId: string, scope: SubmissionScope, access: Access): Promise<{ title: string; workspaceId: string }> {
    if ('formId' in scope) {
      const form = await this.forms.formForMember(userId, scope.formId, access);
      return { title: form.name, workspaceId: form.workspaceId };
    }
    const workspace = await this.workspaces.getForMember(userId, scope.workspaceId);
    if (access.api) requireUpgraded(workspace, this.workspaces.plans);
    return { title: workspace.name, workspaceId: workspace.id };
  }

  /** Page after page of the list, from just after `start`, giving the loop back between pages when due. */
  private async *pages(
    userId: string,
    scope: SubmissionScope,
    filter: SubmissionFilter,
    access: Access,
    start: Keyset | null,
    slice: LoopSlice,
    linked: boolean,
  ) {
    let after = start;
    for (;;) {
      await slice.yieldIfDue();
      const page = await this.submissions.listSubmissions(userId, scope, { limit: EXPORT_PAGE_SIZE, after }, filter, access);
      if (page.rows.length > 0) {
        const rows = access.api || !linked ? page.rows : await this.withDashboardLinks(page.rows);
        // the CSV's first walk reads names only, and the API's exports carry no triage
        yield linked && !access.api ? await this.withTriage(rows) : rows;
      }
      const next = nextOf(page);
      if (!next) return;
      after = next;
    }
  }

  private async withTriage(rows: SubmissionListRow[]): Promise<ExportRow[]> {
    if (!this.triage) return rows;
    const triage = await this.triage.exportTriage(rows.map((row) => row.id));
    return rows.map((row) => ({ ...row, triage: triage.get(row.id) }));
  }

  /**
   * The rows with each stored file's `url` made the dashboard's download (issue 39, item 18: the
   * API's address answered 401 to a person clicking it, signed in to the dashboard). Files are told
   * apart from a visitor's look-alike objects by the submission's rows, never by their shape.
   */
  private async withDashboardLinks(rows: SubmissionListRow[]): Promise<SubmissionListRow[]> {
    if (!this.files) return rows;
    const { files, links } = this.files;
    const bySubmission = await files.filesOf(rows.map((row) => row.id));
    if (bySubmission.size === 0) return rows;
    return rows.map((row) => {
      const stored = (bySubmission.get(row.id) ?? []).filter((file) => file.stored);
      if (stored.length === 0) return row;
      const data = dataOf(row);
      if (data === null || typeof data !== 'object' || Array.isArray(data)) return row;
      return { ...row, data: withFileLinks(data as Record<string, unknown>, stored, (file) => links.dashboardUrl(row.id, file.id)) };
    });
  }

  /**
   * CSV needs its columns before its first row: a first walk collects the field names only, the
   * second writes the rows, of the same set (rows that came in between are left out: the export is
   * of the set as the first walk saw it).
   */
  private async csvChunks(
    walk: (start: Keyset | null, linked?: boolean) => AsyncGenerator<ExportRow[]>,
    slice: LoopSlice,
    triaged: boolean,
  ): Promise<AsyncGenerator<string>> {
    const names = new Set<string>();
    let overflow = false;
    let newest: Keyset | null = null;
    for await (const rows of walk(null, false)) {
      newest ??= { createdAt: rows[0]!.createdAt, id: rows[0]!.id };
      for (const row of rows) {
        if (slice.due()) await slice.yieldNow();
        for (const name of flattenFields(dataOf(row)).keys()) {
          if (names.has(name)) continue;
          if (names.size < MAX_FIELD_COLUMNS) names.add(name);
          else overflow = true;
        }
      }
    }
    const columns = [...names];
    const header = [...LEADING_COLUMNS, ...columns, ...(overflow ? [OTHER_FIELDS_COLUMN] : []), ...(triaged ? TRIAGE_COLUMNS : [])];
    // from just above the newest row the first walk saw (every row of its millisecond included)
    const start = newest && { createdAt: newest.createdAt + 1, id: '' };
    const rows = newest ? await opened(walk(start)) : null;
    return csvBody(header, columns, overflow, rows, newest, slice);
  }
}

async function* csvBody(
  header: string[],
  columns: string[],
  overflow: boolean,
  pages: AsyncGenerator<ExportRow[]> | null,
  newest: Keyset | null,
  slice: LoopSlice,
): AsyncGenerator<string> {
  // field names are escaped like values: a header cell can be a formula too
  yield BOM + stringify([header.map(neutraliseFormula)], CSV_OPTIONS);
  if (!pages || !newest) return;
  for await (const rows of pages) {
    let records: Cell[][] = [];
    for (const row of rows) {
      if (newerThan(row, newest)) continue;
      records.push(csvRecord(row, columns, overflow));
      // a slice's records go out as one chunk: every record ends with its CRLF, so the file is the same bytes
      if (slice.due()) {
        yield stringify(records, CSV_OPTIONS);
        records = [];
        await slice.yieldNow();
      }
    }
    if (records.length > 0) yield stringify(records, CSV_OPTIONS);
  }
}

function csvRecord(row: ExportRow, columns: string[], overflow: boolean): Cell[] {
  const cells = flattenFields(dataOf(row));
  const record: Cell[] = [row.id, new Date(row.createdAt).toISOString(), row.formId];
  for (const name of columns) {
    record.push(neutraliseFormula(cells.get(name) ?? ''));
    cells.delete(name);
  }
  // NOTE: the rows are those the first walk saw, so whatever is left of their fields is past the cap
  if (overflow) record.push(cells.size > 0 ? JSON.stringify(Object.fromEntries(cells)) : '');
  if (row.triage) record.push(row.triage.status, row.triage.assignee ?? '', neutraliseFormula(row.triage.labels.join(', ')));
  return record;
}

/** A JSON array of the API's Submission resources, `data` as stored; `]` only when every row is out. */
async function* jsonChunks(pages: AsyncGenerator<ExportRow[]>, slice: LoopSlice): AsyncGenerator<string> {
  let first = true;
  for await (const rows of pages) {
    let items: string[] = [];
    for (const row of rows) {
      // the Submission as the API writes it, then its triage (an addition, as the triage API's lists have it)
      items.push(row.triage ? `${submissionJson(row).slice(0, -1)},"triage":${JSON.stringify(row.triage)}}` : submissionJson(row));
      if (slice.due()) {
        yield `${first ? '[\n' : ',\n'}${items.join(',\n')}`;
        first = false;
        items = [];
        await slice.yieldNow();
      }
    }
    if (items.length > 0) {
      yield `${first ? '[\n' : ',\n'}${items.join(',\n')}`;
      first = false;
    }
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

/** What an export was narrowed by, for the audit log: the time range, and the names of the other filters. */
function filterNames(filter: SubmissionFilter): Record<string, unknown> {
  const { from, to, ...others } = filter;
  const range = {
    ...(from === undefined ? {} : { from: new Date(from).toISOString() }),
    ...(to === undefined ? {} : { to: new Date(to).toISOString() }),
  };
  const filters = Object.keys(others).filter((name) => others[name as keyof typeof others] !== undefined);
  return filters.length > 0 ? { ...range, filters } : range;
}

function dataOf(row: SubmissionListRow): unknown {
  return typeof row.data === 'string' ? JSON.parse(row.data) : row.data;
}

function newerThan(row: Keyset, than: Keyset): boolean {
  return row.createdAt > than.createdAt || (row.createdAt === than.createdAt && row.id > than.id);
}
