import { AUDIT_GROUPS, type AuditVia } from '../../domain/audit.js';
import type { AuditEvent } from '../../services/audit-log.js';
import type { FieldErrors } from '../field-errors.js';
import { Breakable, EmptyState, Field, FormError, Time } from './components.js';
import { type Column, DataTable } from './data-table.js';
import { type Frame, Layout } from './layout.js';
import { type Pager, PagerLinks } from './pager.js';

/** The filter as typed, kept in the address (`?group=token&person=…&from=2026-11-01`) so that a view can be shared. */
export interface AuditFilterValues {
  group: string;
  person: string;
  from: string;
  to: string;
}

interface AuditPageProps {
  frame: Frame;
  /** The workspace's log, or (null) the whole installation's, for the instance admin. */
  workspace: { id: string; name: string } | null;
  events: AuditEvent[];
  values: AuditFilterValues;
  errors: FieldErrors;
  pager: Pager;
  /** This page's address without filter or page: where Clear leads. */
  path: string;
  /** Days events are kept; null: forever. */
  retentionDays: number | null;
  /** The viewer's time zone: the days of the filter are read in it. */
  zone: string;
}

const VIA: Record<AuditVia, string> = { dashboard: 'Dashboard', api: 'API', cli: 'Command line', system: 'Formgate' };

// a detail's value longer than this is cut in the table; the whole is one click away
const DETAILS_SHOWN = 160;

/** Who acted, in words: their address, else where an event without a person came from. */
function Who({ event }: { event: AuditEvent }) {
  if (event.actorEmail !== null) return <Breakable text={event.actorEmail} />;
  if (event.via === 'cli') return <span class="muted">A command on the server</span>;
  if (event.via === 'system') return <span class="muted">Formgate, on its own</span>;
  return <span class="muted">Someone not signed in</span>;
}

function What({ event }: { event: AuditEvent }) {
  const [group, verb] = event.action.split(/\.(.*)/s) as [string, string | undefined];
  return (
    <div>
      <code class="audit-action">
        {group}
        {verb && (
          <>
            .<wbr />
            {verb}
          </>
        )}
      </code>
      {event.targetName !== null && (
        <span class="sub-line">
          <Breakable text={event.targetName} />
        </span>
      )}
    </div>
  );
}

function FromWhere({ event }: { event: AuditEvent }) {
  return (
    <div>
      {VIA[event.via] ?? event.via}
      {event.ip !== null && ` · ${event.ip}`}
      {event.userAgent !== null && (
        <span class="muted sub-line">
          <Breakable text={event.userAgent} />
        </span>
      )}
    </div>
  );
}

/** The details as `name: value` pairs on one line, cut when long with the whole in a disclosure. */
function Details({ details }: { details: string | null }) {
  if (details === null) return <span class="muted">—</span>;
  const parsed = JSON.parse(details) as Record<string, unknown>;
  const text = Object.entries(parsed)
    .map(
      ([name, value]) =>
        `${name}: ${Array.isArray(value) ? value.join(', ') : typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value)}`,
    )
    .join('; ');
  if (text.length <= DETAILS_SHOWN) return <span class="audit-details">{text}</span>;
  return (
    <details class="full-error">
      <summary>{`${text.slice(0, DETAILS_SHOWN)}…`}</summary>
      <p class="audit-details">{text}</p>
    </details>
  );
}

function columns(installation: boolean): Column<AuditEvent>[] {
  const list: Column<AuditEvent>[] = [
    { label: 'When', class: 'audit-when', cell: (e) => <Time ms={e.at} /> },
    { label: 'Who', cell: (e) => <Who event={e} /> },
    { label: 'What', cell: (e) => <What event={e} /> },
    { label: 'From where', cell: (e) => <FromWhere event={e} /> },
    { label: 'Details', cell: (e) => <Details details={e.details} /> },
  ];
  if (installation) {
    list.splice(3, 0, {
      label: 'Workspace',
      cell: (e) =>
        e.workspaceId === null ? (
          <span class="muted">Account or installation</span>
        ) : (
          <div>
            {e.workspaceName ?? <span class="muted">Deleted</span>}
            <code class="muted sub-line">{e.workspaceId}</code>
          </div>
        ),
    });
  }
  return list;
}

function FilterForm({
  path,
  values,
  errors,
  zone,
  filtered,
}: {
  path: string;
  values: AuditFilterValues;
  errors: FieldErrors;
  zone: string;
  filtered: boolean;
}) {
  return (
    <form method="get" action={path} class="audit-filters" aria-label="Filter the audit log" noValidate>
      <div class="field">
        <label for="field-group">What</label>
        <p class="hint" id="field-group-hint">
          A kind of change
        </p>
        <select
          id="field-group"
          name="group"
          aria-invalid={errors.group ? 'true' : undefined}
          aria-describedby={errors.group ? 'field-group-hint field-group-error' : 'field-group-hint'}
        >
          <option value="">Everything</option>
          {Object.entries(AUDIT_GROUPS).map(([group, label]) => (
            <option key={group} value={group} selected={values.group === group}>
              {label}
            </option>
          ))}
        </select>
        {errors.group && (
          <p class="error" id="field-group-error">
            {errors.group}
          </p>
        )}
      </div>
      <Field label="Person" name="person" type="email" value={values.person} errors={errors} hint="Their email address" autocomplete="off" />
      <Field label="From" name="from" type="date" value={values.from} errors={errors} hint={`A day, in ${zone}`} />
      <Field label="To" name="to" type="date" value={values.to} errors={errors} hint="A day, included" />
      <div class="filter-actions actions">
        <button type="submit">Filter</button>
        {filtered && (
          <a class="button secondary" href={path}>
            Clear
          </a>
        )}
      </div>
    </form>
  );
}

function emptyText(refused: boolean, filtered: boolean): string {
  if (refused) return 'Nothing is listed until the filter is corrected.';
  return filtered ? 'No event matches this filter.' : 'Nothing has been recorded yet.';
}

/** A workspace's audit log for its owners, or the installation's for the instance admin: filter, table, pages. */
export function AuditPage({ frame, workspace, events, values, errors, pager, path, retentionDays, zone }: AuditPageProps) {
  const filtered = Boolean(values.group || values.person || values.from || values.to);
  const kept = retentionDays === null ? 'Events are kept for good.' : `Events are kept ${retentionDays} days.`;
  return (
    <Layout title={workspace ? `Audit log of ${workspace.name}` : 'Audit log of the installation'} heading="Audit log" frame={frame}>
      <p class="muted">
        {workspace
          ? 'Who changed what in this workspace, when and from where: its people, keys, settings, forms and templates, and every export, download, erasure and deletion of submissions. '
          : 'Everything every account did, in every workspace, and the installation’s own settings. '}
        {kept} What visitors sent is never written here.
      </p>
      <FormError errors={errors} />
      <FilterForm path={path} values={values} errors={errors} zone={zone} filtered={filtered} />
      {events.length === 0 ? (
        <EmptyState>
          <p>{emptyText(Object.keys(errors).length > 0, filtered)}</p>
        </EmptyState>
      ) : (
        <DataTable label="Audit events" columns={columns(workspace === null)} rows={events} rowKey={(e) => e.id} wrapClass="listing" class="audit" />
      )}
      <PagerLinks pager={pager} label="Pages of the audit log" />
    </Layout>
  );
}
