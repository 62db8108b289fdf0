import { cut, listLineOf, timeText } from '../submission-fields.js';
import { formatShortTime } from '../time-zone.js';
import { formPath } from './form-layout.js';
import type { Label } from '../../domain/labels.js';

/** A submission as a line of a list shows it. */
export interface ListRow {
  id: string;
  formId: string;
  data: unknown;
  createdAt: number;
  /** Stored files of the submission: a paperclip. */
  files?: number;
  /** Nobody of the team has opened it yet: a dot and a bold name. */
  unread?: boolean;
  /** The team's note: a note icon that says it. */
  note?: string | null;
  /** Marked done (triage): a badge where the list shows done ones beside open ones. */
  done?: boolean;
  /** The member it is assigned to: a badge with their name. */
  assigneeId?: string | null;
  /** Its labels, each a badge in its colour. */
  labels?: Label[];
}

/** Whom the badges name: the viewer is "You", anyone else by the part of their address before the @. */
export interface ListPeople {
  viewer: string;
  emails: Map<string, string>;
}

const plural = (n: number, one: string, many: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/**
 * Submissions as a mail client lists messages: one line each, with who sent it (the name, else the
 * address), the first line of what it says, its badges, its form (on a workspace's list) and when.
 * A table, so that a screen reader can move by cell; its header row is for them only. The name is the
 * row's link, stretched over the row for a pointer. `select` adds a checkbox per row for bulk actions.
 */
export function SubmissionList({
  rows,
  formNames,
  select,
  label,
  people,
  showDone,
  linkOf,
  current,
}: {
  rows: ListRow[];
  formNames?: Map<string, string>;
  select?: boolean;
  label: string;
  people?: ListPeople;
  showDone?: boolean;
  /** Where a line leads: its submission's page, unless the list opens it in a reading pane (the inbox). */
  linkOf?: (id: string) => string;
  /** The submission open in the pane: its line is marked. */
  current?: string | null;
}) {
  const line = { formNames, select, people, showDone, linkOf, current };
  return (
    // the wrapper is what the lines' layout asks the width of: a phone's, or the column beside a reading pane
    <div class="submission-lines">
      <table class={select ? 'submission-list' : 'submission-list unselectable'} aria-label={label}>
        {/* the columns' widths: the header row is hidden, and a fixed table takes them from here */}
        <colgroup>
          {select && <col class="select-col" />}
          <col class="who-col" />
          <col />
          {formNames && <col class="form-col" />}
          <col class="when-col" />
        </colgroup>
        <thead class="visually-hidden">
          <tr>
            {select && <th scope="col">Select</th>}
            <th scope="col">From</th>
            <th scope="col">Message</th>
            {formNames && <th scope="col">Form</th>}
            <th scope="col">Received</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <ListLine row={row} {...line} key={row.id} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ListLine({
  row,
  formNames,
  select,
  people,
  showDone,
  linkOf,
  current,
}: {
  row: ListRow;
  formNames?: Map<string, string>;
  select?: boolean;
  people?: ListPeople;
  showDone?: boolean;
  linkOf?: (id: string) => string;
  current?: string | null;
}) {
  const { who, preview } = listLineOf(row.data);
  const time = formatShortTime(row.createdAt);
  const name = who ?? 'No name given';
  return (
    <tr class={[row.unread && 'unread', row.id === current && 'current'].filter(Boolean).join(' ') || undefined} data-id={row.id}>
      {select && (
        <td class="select-cell">
          <input type="checkbox" name="id" value={row.id} id={`select-${row.id}`} />
          <label for={`select-${row.id}`} class="visually-hidden">
            Select the submission of {name}, {timeText(row.createdAt)}
          </label>
        </td>
      )}
      <td class="who-cell">
        {/* on every line, shown on unread ones: the names stay in one column */}
        <span class="unread-mark" aria-hidden="true" />
        <a
          href={linkOf ? linkOf(row.id) : `/submissions/${row.id}`}
          data-pane={linkOf ? '' : undefined}
          aria-current={row.id === current ? 'true' : undefined}
          class={who ? 'who' : 'who nobody'}
        >
          {name}
          {row.unread && <span class="visually-hidden"> (unread)</span>}
        </a>
      </td>
      <td class="preview-cell">
        {/* the preview gives way to the badges: they stay whole at the line's end */}
        <div class="preview-line">
          <span class="preview">{preview}</span>
          {row.files ? <FilesMarker count={row.files} /> : null}
          {row.note ? <NoteMarker note={row.note} /> : null}
          {showDone && row.done && <span class="badge neutral line-badge">Done</span>}
          {row.labels?.map((label) => (
            <LabelBadge key={label.id} label={label} />
          ))}
          {row.assigneeId && people && <AssigneeBadge id={row.assigneeId} people={people} />}
        </div>
      </td>
      {formNames && (
        <td class="form-cell">
          <a href={formPath(row.formId)}>{formNames.get(row.formId) ?? 'A deleted form'}</a>
        </td>
      )}
      <td class="when-cell">
        <time dateTime={time.iso} title={time.full}>
          {time.text}
        </time>
      </td>
    </tr>
  );
}

/** A label in its colour; "Label: …" to a screen reader. */
export function LabelBadge({ label }: { label: Label }) {
  return (
    <span class={`badge line-badge label-${label.color}`}>
      <span class="visually-hidden">Label: </span>
      {label.name}
    </span>
  );
}

/** Who it is assigned to: "You", or the person's name as their address begins. */
function AssigneeBadge({ id, people }: { id: string; people: ListPeople }) {
  const email = people.emails.get(id);
  const name = id === people.viewer ? 'You' : (email?.split('@')[0] ?? 'A former member');
  return (
    <span class="badge line-badge" title={email}>
      <span class="visually-hidden">Assigned to </span>
      {name}
    </span>
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
