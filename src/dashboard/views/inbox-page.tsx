import type { FilterValues } from '../date-range.js';
import type { FieldErrors } from '../field-errors.js';
import type { DayCount } from '../../services/stats.js';
import { DailyChart, describeDays } from './chart.js';
import { CsrfInput, EmptyState, Field, SearchLine } from './components.js';
import { type ListRow, SubmissionList } from './submission-list.js';
import { KeyboardHelp, KeyboardHelpButton } from './keyboard-help.js';
import { plainView, type TriageView, viewParams } from '../triage-view.js';
import { withQuery } from '../links.js';
import { BulkForm } from './bulk-form.js';
import { type Pager, PagerLinks } from './pager.js';
import type { SavedViewLink } from '../saved-view-links.js';
import { ReadingPane, type ReadingPaneProps, paneWho } from './reading-pane.js';
import type { Label } from '../../domain/labels.js';
import { OPEN_CAP } from '../../services/triage.js';
import { SAVED_VIEW_NAME_MAX } from '../../services/saved-views.js';
import { FormLayout, formPath } from './form-layout.js';
import { type Frame, Layout } from './layout.js';

export type { Pager } from './pager.js';

/** A submission as a row of the inbox shows it. */
export type InboxRow = ListRow;

/** The inbox's triage: the view asked for, the open count, and who can be assigned. */
export interface InboxTriage {
  view: TriageView;
  /** Open submissions, and the viewer's own among them, each counted up to OPEN_CAP. */
  open: number;
  mine: number;
  assignees: { id: string; email: string }[];
  /** The workspace's labels: the filter, the bulk action. */
  labels: Label[];
  /** Where they are made and changed. */
  labelsPath: string;
  /** The viewer: "Mine" and "You". */
  userId: string;
  /** On a workspace's inbox, its forms: the Form filter. */
  forms?: { id: string; name: string }[];
  /** The member's saved views of this inbox, and what Save view posts: the view shown (a query string) and the form. */
  saved: { links: SavedViewLink[]; action: string; formId: string; query: string };
}

interface InboxProps {
  frame: Frame;
  triage: InboxTriage;
  rows: InboxRow[];
  values: FilterValues;
  errors: FieldErrors;
  pager: Pager;
  /** This page's address with its filter and cursor: where a deletion comes back to. */
  back: string;
  /** The export links' address and the filter they carry (`search=…&from=…`, only the good ones). */
  exportPath: string;
  exportQuery: string;
  /** Where a line leads: its submission in the reading pane, this page of the list beside it. */
  linkOf: (id: string) => string;
  /** The submission open in the pane (issue 41, item 2), if any. */
  current: string | null;
  pane: ReadingPaneProps | null;
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
    <FormLayout frame={frame} form={form} tab="submissions" title={paneTitle(props.pane, 'Submissions')} scripts={INBOX_SCRIPTS}>
      {held > 0 && (
        <p class="notice">
          <a href={`${path}/held`}>{plural(held, 'submission is held', 'submissions are held')}</a>
          {/* team mode speaks no plans (issue 41, item 16) */}
          {frame.plans.team
            ? ': they came while this installation still limited how many submissions a workspace receives, and are kept but not listed or delivered.'
            : ': they came after the workspace used its allowance, and are listed and delivered once it grows.'}
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
    <Layout title={paneTitle(props.pane, 'All submissions')} heading="All submissions" frame={props.frame} scripts={INBOX_SCRIPTS}>
      <p class="breadcrumb">
        <a href={`/w/${props.workspaceId}`}>← All forms</a>
      </p>
      <Inbox {...props} path={path} setup={`/w/${props.workspaceId}`} />
    </Layout>
  );
}

const INBOX_SCRIPTS = ['select-all.js', 'inbox-keys.js', 'reading-pane.js'];

/** The page's title names the open submission first: the browser's history and tabs tell them apart. */
const paneTitle = (pane: ReadingPaneProps | null, list: string) => (pane ? `${paneWho(pane.submission)} · ${list}` : list);

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
  triage,
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
  linkOf,
  current,
  pane,
}: InboxProps & { path: string; setup: string; formNames?: Map<string, string> }) {
  const { assignee, label, unread, files, form } = triage.view;
  const filtered = Boolean(values.search || values.from || values.to || assignee || label || unread || files || form);
  const exportLink = (format: string) => `${exportPath}?format=${format}${exportQuery ? `&${exportQuery}` : ''}`;
  return (
    // with a submission open: the list and the pane side by side at wide widths, the pane alone at narrow ones
    <div class={pane ? 'reading-split has-pane' : 'reading-split'}>
      <section class="panel inbox-panel" aria-labelledby="submissions-heading">
        {/* the tab above names the list: its heading is for screen readers, the first line is the search */}
        <h2 id="submissions-heading" class="visually-hidden">
          {filtered ? 'Matching submissions' : 'Submissions'}
        </h2>
        <div class="inbox-tools">
          <ViewLinks path={path} triage={triage} values={values} />
          <SearchForm path={path} values={values} errors={errors} filtered={filtered} triage={triage} />
          <SaveView triage={triage} csrf={frame.csrf} />
          <p class="export-links">
            <a href={exportLink('csv')}>Export CSV</a>
            <a href={exportLink('json')}>Export JSON</a>
          </p>
        </div>
        {rows.length === 0 ? (
          <NoRows filtered={filtered} later={pager.newest !== null} more={pager.next !== null} path={path} setup={setup} isForm={!formNames} />
        ) : (
          <BulkForm
            action={`${path}/bulk`}
            label="Submissions on this page"
            csrf={frame.csrf}
            back={back}
            ids={rows.map((row) => row.id)}
            actions={<BulkActions triage={triage} />}
          >
            <SubmissionList
              rows={rows}
              formNames={formNames}
              select
              label={filtered ? 'Matching submissions' : 'Submissions'}
              people={{ viewer: triage.userId, emails: new Map(triage.assignees.map((a) => [a.id, a.email])) }}
              showDone={triage.view.state === 'all'}
              linkOf={linkOf}
              current={current}
            />
          </BulkForm>
        )}
        <PagerLinks pager={pager} />
        <p class="keys-hint">
          <KeyboardHelpButton />
        </p>
        <KeyboardHelp />
        {/* the script says here which submission it opened in the pane */}
        <p id="pane-status" class="visually-hidden" role="status" />
      </section>
      {pane && <ReadingPane {...pane} />}
    </div>
  );
}

/** The views by status (issue 41, item 5): open ones (counted), mine among them, done ones, all; each keeps the search. */
function ViewLinks({ path, triage, values }: { path: string; triage: InboxTriage; values: FilterValues }) {
  const { state, assignee } = triage.view;
  const views: { label: string; view: TriageView; count?: string }[] = [
    { label: 'Open', view: plainView('open'), count: counted(triage.open) },
    { label: 'Mine', view: plainView('open', 'me'), count: counted(triage.mine) },
    { label: 'Done', view: plainView('done') },
    { label: 'All', view: plainView('all') },
  ];
  const { label: onlyLabel, unread, files, form } = triage.view;
  const narrowed = Boolean(onlyLabel || unread || files || form);
  return (
    <nav class="filters inbox-views" aria-label="Views">
      {views.map(({ label, view, count }) => (
        <a
          key={label}
          href={withQuery(path, { search: values.search, ...viewParams(view) })}
          aria-current={view.state === state && view.assignee === assignee && !narrowed ? 'page' : undefined}
        >
          {label}
          {count !== undefined && <span class="view-count"> {count}</span>}
        </a>
      ))}
      {triage.saved.links.map((view) => (
        <a key={view.id} href={view.href} class="saved-view" aria-current={view.current ? 'page' : undefined}>
          {view.name}
          {view.count !== '' && <span class="view-count"> {view.count}</span>}
        </a>
      ))}
    </nav>
  );
}

/** The views every inbox has: nothing to save there. */
const DEFAULT_VIEWS = new Set(['', 'assignee=me', 'state=done', 'state=all']);

/**
 * Save view (issue 41, item 8): the view shown, under a name, as the member's own; the saved view
 * shown can be deleted from here. Folded: most visits only use the views.
 */
function SaveView({ triage, csrf }: { triage: InboxTriage; csrf: string }) {
  const { links, action, formId, query } = triage.saved;
  const current = links.find((view) => view.current);
  if (current) {
    return (
      <form method="post" action={`${action}/${current.id}/delete`} class="save-view">
        <CsrfInput token={csrf} />
        <button type="submit" class="link-button">
          Delete the view “{current.name}”
        </button>
      </form>
    );
  }
  if (DEFAULT_VIEWS.has(query)) return null;
  return (
    <details class="save-view">
      <summary class="save-view-head">Save this view</summary>
      <form method="post" action={action} class="save-view-form">
        <CsrfInput token={csrf} />
        <input type="hidden" name="form" value={formId} />
        <input type="hidden" name="query" value={query} />
        <label for="field-view-name">Name</label>
        <input id="field-view-name" name="name" type="text" required maxLength={SAVED_VIEW_NAME_MAX} />
        <button type="submit" class="secondary small">
          Save view
        </button>
      </form>
    </details>
  );
}

/** A count as a view shows it: "999+" past the cap. */
const counted = (n: number) => (n >= OPEN_CAP ? `${OPEN_CAP - 1}+` : String(n));

/** The search on one line above the list; the dates and the assignee folded beside it until used. */
function SearchForm({
  path,
  values,
  errors,
  filtered,
  triage,
}: {
  path: string;
  values: FilterValues;
  errors: FieldErrors;
  filtered: boolean;
  triage: InboxTriage;
}) {
  const { state, assignee, label, unread, files, form } = triage.view;
  const more = Boolean(values.from || values.to || errors.from || errors.to || (assignee && assignee !== 'me') || label || unread || files || form);
  return (
    <form method="get" action={path} class="inbox-search" aria-label="Filter the submissions">
      {state !== 'open' && <input type="hidden" name="state" value={state} />}
      <SearchLine value={values.search} errors={errors} submit="Filter" clear={filtered ? path : null} />
      <details class="date-filter" open={more}>
        <summary class="date-filter-head">More filters</summary>
        <div class="date-fields">
          <div class="field">
            <label for="field-assignee">Assigned to</label>
            <select id="field-assignee" name="assignee">
              <option value="">Anyone</option>
              <option value="me" selected={assignee === 'me'}>
                Me
              </option>
              <option value="none" selected={assignee === 'none'}>
                Nobody
              </option>
              {triage.assignees
                .filter((person) => person.id !== triage.userId)
                .map((person) => (
                  <option key={person.id} value={person.id} selected={assignee === person.id}>
                    {person.email}
                  </option>
                ))}
            </select>
          </div>
          <div class="field">
            <label for="field-label">With label</label>
            <select id="field-label" name="label">
              <option value="">Any</option>
              {triage.labels.map((one) => (
                <option key={one.id} value={one.id} selected={label === one.id}>
                  {one.name}
                </option>
              ))}
            </select>
            <p class="hint">
              <a href={triage.labelsPath}>Manage labels</a>
            </p>
          </div>
          {triage.forms && (
            <div class="field">
              <label for="field-form">Form</label>
              <select id="field-form" name="form">
                <option value="">Every form</option>
                {triage.forms.map((one) => (
                  <option key={one.id} value={one.id} selected={form === one.id}>
                    {one.name}
                  </option>
                ))}
              </select>
            </div>
          )}
          <fieldset class="field filter-checks">
            <legend>Only</legend>
            <label class="filter-check">
              <input type="checkbox" name="unread" value="1" checked={unread} /> Unread
            </label>
            <label class="filter-check">
              <input type="checkbox" name="files" value="1" checked={files} /> With files
            </label>
          </fieldset>
          <Field label="From" name="from" type="date" value={values.from} errors={errors} hint="A day, in UTC" />
          <Field label="To" name="to" type="date" value={values.to} errors={errors} hint="A day, included" />
        </div>
      </details>
    </form>
  );
}

/** Beside the select-all box, as mail clients have them: what to do with the ticked ones. */
function BulkActions({ triage }: { triage: InboxTriage }) {
  return (
    <>
      <span class="bulk-buttons">
        {triage.view.state === 'done' ? (
          <button type="submit" name="action" value="reopen" class="secondary small">
            Reopen
          </button>
        ) : (
          <button type="submit" name="action" value="done" class="secondary small">
            Mark as done
          </button>
        )}
        <button type="submit" name="action" value="read" class="secondary small">
          Mark as read
        </button>
        <button type="submit" name="action" value="spam" class="secondary small">
          Mark as spam
        </button>
        <button type="submit" name="action" value="delete" class="secondary small">
          Delete
        </button>
      </span>
      {/* folded: the line of actions stays one line at laptop widths, so the list starts higher */}
      <details class="bulk-more">
        <summary class="bulk-more-head">Assign or label</summary>
        <span class="bulk-assign">
          <label for="bulk-assignee">Assign to</label>
          <select id="bulk-assignee" name="assignee">
            <option value="">Nobody</option>
            {triage.assignees.map((person) => (
              <option key={person.id} value={person.id}>
                {person.id === triage.userId ? `Me (${person.email})` : person.email}
              </option>
            ))}
          </select>
          <button type="submit" name="action" value="assign" class="secondary small">
            Assign
          </button>
        </span>
        {triage.labels.length > 0 && (
          <span class="bulk-assign">
            <label for="bulk-label">Label as</label>
            <select id="bulk-label" name="label">
              {triage.labels.map((one) => (
                <option key={one.id} value={one.id}>
                  {one.name}
                </option>
              ))}
            </select>
            <button type="submit" name="action" value="label-add" class="secondary small">
              Add
            </button>
            <button type="submit" name="action" value="label-remove" class="secondary small">
              Remove
            </button>
          </span>
        )}
      </details>
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
