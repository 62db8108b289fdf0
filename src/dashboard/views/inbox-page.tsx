import type { FilterValues } from '../date-range.js';
import type { FieldErrors } from '../field-errors.js';
import { compactValue, cut, fieldColumns, fieldLabel, fieldsOf, hiddenFieldCount, MAX_FIELD_COLUMNS, timeText } from '../submission-fields.js';
import type { DayCount } from '../../services/stats.js';
import { DailyChart, describeDays } from './chart.js';
import { Breakable, CsrfInput, EmptyState, Field, Time } from './components.js';
import { FormLayout, formPath } from './form-layout.js';
import { type Frame, Layout } from './layout.js';

/** A submission as a row of the inbox shows it. */
export interface InboxRow {
  id: string;
  formId: string;
  data: unknown;
  createdAt: number;
  /** Stored files of the submission: marked with a paperclip. */
  files?: number;
  /** Nobody of the team has opened it yet: bold. */
  unread?: boolean;
  /** The team's note: a note icon that says it. */
  note?: string | null;
}

/** Where a list's pages lead: the next one, and back to the first (null where there is none). */
export interface Pager {
  next: string | null;
  newest: string | null;
}

interface InboxProps {
  frame: Frame;
  rows: InboxRow[];
  values: FilterValues;
  errors: FieldErrors;
  pager: Pager;
  /** This page's address with its filter and cursor: where a deletion comes back to. */
  back: string;
  /** The export links' address and the filter they carry (`search=…&from=…`, only the good ones). */
  exportPath: string;
  exportQuery: string;
  /** The list's field names in a fixed order (its newest submissions'), so that columns stay put while filtering. */
  columns: string[];
}

export interface FormInboxProps extends InboxProps {
  form: { id: string; name: string; workspaceId: string };
  /** How many of the form's submissions are held past the allowance. */
  held: number;
  /** The form's last 30 days, for its chart. */
  days: DayCount[];
}

export interface WorkspaceInboxProps extends InboxProps {
  workspaceId: string;
  formNames: Map<string, string>;
}

const plural = (n: number, one: string, many: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** A form's submissions: the filter, the table, paging, export, and held ones when there are some. */
export function FormInboxPage(props: FormInboxProps) {
  const { frame, form, held, days } = props;
  const path = formPath(form.id);
  return (
    <FormLayout frame={frame} form={form} tab="submissions" title="Submissions" scripts={['select-all.js']}>
      {held > 0 && (
        <p class="notice">
          <a href={`${path}/held`}>{plural(held, 'submission is held', 'submissions are held')}</a>: they came after the workspace used its allowance, and are
          listed and delivered once it grows.
        </p>
      )}
      <Inbox {...props} path={path} setup={formPath(form.id, 'setup')} />
      <ChartDetails days={days} id="form-chart" subject={form.name} />
    </FormLayout>
  );
}

/** Every form's submissions of a workspace in one table, with a column naming the form. */
export function WorkspaceInboxPage(props: WorkspaceInboxProps) {
  const path = `/w/${props.workspaceId}/submissions`;
  return (
    <Layout title="All submissions" frame={props.frame} scripts={['select-all.js']}>
      <p class="breadcrumb">
        <a href={`/w/${props.workspaceId}`}>← All forms</a>
      </p>
      <Inbox {...props} path={path} setup={`/w/${props.workspaceId}`} />
    </Layout>
  );
}

/** The chart, closed by default below the list: the submissions come first on every screen. */
export function ChartDetails({ days, id, subject, title = 'Last 30 days' }: { days: DayCount[]; id: string; subject: string; title?: string }) {
  return (
    <details class="panel chart-details">
      <summary class="chart-details-head">
        <span class="chart-details-title">{title}</span> <span class="muted chart-details-summary">{describeDays(days)}</span>
      </summary>
      <DailyChart days={days} id={id} subject={subject} />
    </details>
  );
}

function Inbox({
  frame,
  columns,
  rows,
  values,
  errors,
  pager,
  back,
  exportPath,
  exportQuery,
  path,
  setup,
  formNames,
}: InboxProps & { path: string; setup: string; formNames?: Map<string, string> }) {
  const filtered = Boolean(values.search || values.from || values.to);
  const exportLink = (format: string) => `${exportPath}?format=${format}${exportQuery ? `&${exportQuery}` : ''}`;
  return (
    <>
      <section class="panel" aria-labelledby="filter-heading">
        <h2 id="filter-heading" class="visually-hidden">
          Filter
        </h2>
        <form method="get" action={path} class="filters inbox-filter">
          <Field label="Search" name="search" type="search" value={values.search} errors={errors} hint="Any field’s name or value" />
          {/* the dates fold away until used: on a phone the list starts on the first screen */}
          <details class="date-filter" open={Boolean(values.from || values.to || errors.from || errors.to)}>
            <summary class="date-filter-head">Dates</summary>
            <div class="date-fields">
              <Field label="From" name="from" type="date" value={values.from} errors={errors} hint="A day, in UTC" />
              <Field label="To" name="to" type="date" value={values.to} errors={errors} hint="A day, included" />
            </div>
          </details>
          <div class="filter-actions actions">
            <button type="submit">Filter</button>
            {filtered && (
              <a class="button secondary" href={path}>
                Clear
              </a>
            )}
          </div>
        </form>
      </section>
      <section class="panel" aria-labelledby="submissions-heading">
        <div class="panel-head">
          <h2 id="submissions-heading">{filtered ? 'Matching submissions' : 'Submissions'}</h2>
          <p class="export-links">
            <a href={exportLink('csv')}>Export CSV</a>
            <a href={exportLink('json')}>Export JSON</a>
          </p>
        </div>
        {rows.length === 0 ? (
          <NoRows filtered={filtered} later={pager.newest !== null} more={pager.next !== null} path={path} setup={setup} isForm={!formNames} />
        ) : (
          <SubmissionTable rows={rows} back={back} formNames={formNames} order={columns} csrf={frame.csrf} action={`${path}/bulk`} />
        )}
        <PagerLinks pager={pager} />
      </section>
    </>
  );
}

function NoRows({
  filtered,
  later,
  more,
  path,
  setup,
  isForm,
}: {
  filtered: boolean;
  later: boolean;
  more: boolean;
  path: string;
  setup: string;
  isForm: boolean;
}) {
  // a search of a long list checks a share of it per page (services/submissions.ts SEARCH_ROW_CAP)
  if (more) return <EmptyState>Nothing matches among the submissions this page searched; the next page searches older ones.</EmptyState>;
  if (later) return <EmptyState>No more submissions.</EmptyState>;
  if (filtered) {
    return (
      <EmptyState>
        <p>Nothing matches this filter.</p>
        <p>
          <a href={path}>Clear the filters</a>
        </p>
      </EmptyState>
    );
  }
  return (
    <EmptyState>
      <p>No submissions yet.</p>
      <p>
        {isForm ? (
          <>
            <a href={setup}>Set up the form</a> on your site to start receiving them.
          </>
        ) : (
          <>
            Open a form’s <a href={setup}>setup</a> to put it on your site.
          </>
        )}
      </p>
    </EmptyState>
  );
}

/**
 * The columns of a page: the list's own field order (its newest submissions'), then any other names of
 * the page's rows, only those the page's rows have, at most MAX_FIELD_COLUMNS.
 */
export function stableColumns(order: string[], rows: unknown[]): string[] {
  const onPage = fieldColumns(rows, Number.POSITIVE_INFINITY);
  const present = new Set(onPage);
  return [...new Set([...order.filter((name) => present.has(name)), ...onPage])].slice(0, MAX_FIELD_COLUMNS);
}

/**
 * The table of a page: a checkbox per row and one for the whole page (the bulk actions), the time
 * (a link to the submission; bold while unread), then a column per field.
 */
function SubmissionTable({
  rows,
  back,
  formNames,
  order,
  csrf,
  action,
}: {
  rows: InboxRow[];
  back: string;
  formNames?: Map<string, string>;
  order: string[];
  csrf: string;
  action: string;
}) {
  const columns = stableColumns(
    order,
    rows.map((row) => row.data),
  );
  return (
    <form method="post" action={action} aria-label="Submissions on this page">
      <CsrfInput token={csrf} />
      <input type="hidden" name="back" value={back} />
      {rows.map((row) => (
        <input type="hidden" name="pageId" value={row.id} key={row.id} />
      ))}
      <p class="select-all">
        <input type="checkbox" name="all" value="1" id="select-all" data-select-all="id" />
        <label for="select-all">Select all on this page</label>
      </p>
      <div class="table-wrap listing">
        <table class="stack inbox">
          <thead>
            <tr>
              <th scope="col" class="select-cell">
                <span class="visually-hidden">Select</span>
              </th>
              <th scope="col">Received</th>
              {formNames && <th scope="col">Form</th>}
              {columns.map((name) => (
                <th scope="col" key={name}>
                  {fieldLabel(name)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => {
              const fields = fieldsOf(row.data);
              const more = hiddenFieldCount(row.data, columns);
              return (
                <tr key={row.id} class={row.unread ? 'unread' : undefined}>
                  <td data-label="Select" class="select-cell">
                    <input type="checkbox" name="id" value={row.id} id={`select-${row.id}`} />
                    <label for={`select-${row.id}`} class="visually-hidden">
                      Select the submission of {timeText(row.createdAt)}
                    </label>
                  </td>
                  <td data-label="Received">
                    <div>
                      <a href={`/submissions/${row.id}`}>
                        <Time ms={row.createdAt} />
                        {/* after the time: a click on the link lands on its first box, which must be a visible one */}
                        {row.unread && <span class="visually-hidden"> (unread)</span>}
                      </a>
                      {row.unread && (
                        <span class="unread-dot" aria-hidden="true">
                          New
                        </span>
                      )}
                      {row.files ? <FilesMarker count={row.files} /> : null}
                      {row.note ? <NoteMarker note={row.note} /> : null}
                      {more > 0 && <span class="more-fields">+{plural(more, 'more field', 'more fields')}</span>}
                    </div>
                  </td>
                  {formNames && (
                    <td data-label="Form">
                      <a href={formPath(row.formId)}>{formNames.get(row.formId) ?? 'A deleted form'}</a>
                    </td>
                  )}
                  {columns.map((name) => (
                    <td data-label={fieldLabel(name)} key={name} class="field-cell">
                      {name in fields ? <Breakable text={cut(compactValue(fields[name]))} /> : ''}
                    </td>
                  ))}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <div class="bulk-actions actions">
        <span class="muted">With the ticked ones:</span>
        <button type="submit" name="action" value="read" class="secondary">
          Mark as read
        </button>
        <button type="submit" name="action" value="spam" class="secondary">
          Mark as spam
        </button>
        <button type="submit" name="action" value="delete" class="secondary">
          Delete
        </button>
      </div>
    </form>
  );
}

/** A note's icon with the note's text (cut) for a screen reader and on hover. */
function NoteMarker({ note }: { note: string }) {
  const text = `Note: ${cut(note.replace(/\s+/g, ' '), 200)}`;
  return (
    <span class="note-marker">
      <svg role="img" aria-label={text} viewBox="0 0 24 24" width="16" height="16" focusable="false">
        <title>{text}</title>
        <path d="M5 3h10l4 4v14H5z M15 3v4h4 M8 11h8 M8 15h8" fill="none" stroke="currentColor" stroke-width="2" stroke-linejoin="round" />
      </svg>
    </span>
  );
}

/** A paperclip named for a screen reader ("2 files"). */
function FilesMarker({ count }: { count: number }) {
  const name = plural(count, 'file', 'files');
  return (
    <span class="files-marker">
      <svg role="img" aria-label={name} viewBox="0 0 24 24" width="16" height="16" focusable="false">
        <title>{name}</title>
        <path
          d="M16.5 6.5v10a4.5 4.5 0 0 1-9 0V5a3 3 0 0 1 6 0v10.5a1.5 1.5 0 0 1-3 0V6.5"
          fill="none"
          stroke="currentColor"
          stroke-width="2"
          stroke-linecap="round"
        />
      </svg>
      <span aria-hidden="true">{count}</span>
    </span>
  );
}

/** "Back to the newest" and "Next page", as far as there are such pages. */
export function PagerLinks({ pager }: { pager: Pager }) {
  if (!pager.next && !pager.newest) return null;
  return (
    <nav class="pager" aria-label="Pages">
      {pager.newest && <a href={pager.newest}>Back to the newest</a>}
      {pager.next && <a href={pager.next}>Next page</a>}
    </nav>
  );
}
