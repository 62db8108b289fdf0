import type { SubmissionDetail } from '../../services/submissions.js';
import { NOTE_LIMIT } from '../../services/submission-marks.js';
import { isFileValue } from '../../services/export-fields.js';
import type { SubmissionTriage } from '../../services/triage.js';
import type { Label } from '../../domain/labels.js';
import { fieldLabel } from '../submission-fields.js';
import { LabelBadge } from './submission-list.js';
import { CsrfInput, Panel, Time } from './components.js';
import { formPath } from './form-layout.js';

/**
 * The parts of a submission's page that the inbox's reading pane shows too (issue 41, item 2). On the
 * page each change comes back to the page; in the pane, `backs` say where: the pane again (`here`),
 * the next submission once this one leaves the view (`onward`: done, spam, deleted), or the list
 * (`list`: marked unread, which opening it again would undo).
 */
export interface Backs {
  here: string;
  onward: string;
  list: string;
}

/** The hidden field that tells a change's route where to come back to; none on the submission's own page. */
export function BackField({ to }: { to: string | undefined }) {
  return to === undefined ? null : <input type="hidden" name="back" value={to} />;
}

/** The submission's labels: a box for each of the workspace's, ticked when it carries it; one save. */
export function LabelsPanel({
  submissionId,
  labels,
  carried,
  csrf,
  workspaceId,
  backs,
}: {
  submissionId: string;
  labels: Label[];
  carried: Label[];
  csrf: string;
  workspaceId: string;
  backs?: Backs;
}) {
  const have = new Set(carried.map((label) => label.id));
  return (
    <Panel title="Labels" id="labels">
      {labels.length === 0 ? (
        <p class="muted">
          The workspace has no labels yet. <a href={`/w/${workspaceId}/labels`}>Make some</a>
        </p>
      ) : (
        <form method="post" action={`/submissions/${submissionId}/labels`}>
          <CsrfInput token={csrf} />
          <BackField to={backs?.here} />
          <fieldset class="label-choices">
            <legend class="visually-hidden">Labels of this submission</legend>
            {labels.map((label) => (
              <label key={label.id} class="label-choice">
                <input type="checkbox" name="label" value={label.id} checked={have.has(label.id)} /> <LabelBadge label={label} />
              </label>
            ))}
          </fieldset>
          <div class="actions">
            <button type="submit" class="secondary">
              Save labels
            </button>
            <a href={`/w/${workspaceId}/labels`}>Manage labels</a>
          </div>
        </form>
      )}
    </Panel>
  );
}

/** Open or done with the button that changes it, and whom it is assigned to (issue 41): two small forms. */
export function TriageFacts({
  submissionId,
  triage,
  assignees,
  csrf,
  backs,
  selectId = 'field-assignee',
}: {
  submissionId: string;
  triage: SubmissionTriage;
  assignees: { id: string; email: string }[];
  csrf: string;
  backs?: Backs;
  /** The assignee's select: the inbox's filter has a `field-assignee` of its own beside the pane. */
  selectId?: string;
}) {
  const action = `/submissions/${submissionId}/triage`;
  const done = triage.status === 'done';
  return (
    <>
      <dt>Triage</dt>
      <dd>
        <form method="post" action={action} class="triage-form">
          <CsrfInput token={csrf} />
          {/* done leaves the open view: the pane goes on to the next one; reopened, it stays */}
          <BackField to={done ? backs?.here : backs?.onward} />
          <span class={done ? 'badge neutral' : 'badge'}>{done ? 'Done' : 'Open'}</span>
          {done && triage.doneAt !== null && (
            <span class="muted">
              {' '}
              since <Time ms={triage.doneAt} />
            </span>
          )}{' '}
          <button type="submit" name="status" value={done ? 'open' : 'done'} class="secondary small" data-key={done ? undefined : 'e'}>
            {done ? 'Reopen' : 'Mark as done'}
          </button>
        </form>
      </dd>
      <dt>
        <label for={selectId}>Assigned to</label>
      </dt>
      <dd>
        <form method="post" action={action} class="triage-form">
          <CsrfInput token={csrf} />
          <BackField to={backs?.here} />
          <select id={selectId} name="assignee">
            <option value="">Nobody</option>
            {assignees.map((person) => (
              <option key={person.id} value={person.id} selected={person.id === triage.assigneeId}>
                {person.email}
              </option>
            ))}
          </select>{' '}
          <button type="submit" class="secondary small">
            Assign
          </button>
        </form>
      </dd>
    </>
  );
}

export function SubmissionActions({
  submission,
  csrf,
  replyTo,
  team,
  backs,
}: {
  submission: SubmissionDetail;
  csrf: string;
  replyTo: string | null;
  team: boolean;
  backs?: Backs;
}) {
  if (submission.status === 'spam') {
    return (
      <div class="actions submission-actions">
        <form method="post" action={`/submissions/${submission.id}/not-spam`} class="actions">
          <CsrfInput token={csrf} />
          <input type="hidden" name="back" value={`/submissions/${submission.id}`} />
          <button type="submit">Not spam</button>
          <span class="muted">
            {team ? 'Moves it into the inbox: its deliveries go out.' : 'Moves it into the inbox: it counts against the allowance and its deliveries go out.'}
          </span>
        </form>
        {/* now rather than when the folder's retention ends: the confirmation says so (issue 41, item 10) */}
        <form method="get" action="/submissions/delete">
          <input type="hidden" name="id" value={submission.id} />
          <input type="hidden" name="back" value={`${formPath(submission.formId)}/spam`} />
          <button type="submit" class="secondary">
            Delete
          </button>
        </form>
      </div>
    );
  }
  const accepted = submission.status === 'accepted';
  return (
    <div class="actions submission-actions">
      {replyTo && (
        <a class="button" href={`mailto:${encodeURIComponent(replyTo).replace('%40', '@')}`}>
          Reply<span class="visually-hidden"> to {replyTo}</span>
        </a>
      )}
      {accepted && (
        <form method="post" action={`/submissions/${submission.id}/unread`}>
          <CsrfInput token={csrf} />
          <BackField to={backs?.list} />
          <button type="submit" class="secondary" data-key="u">
            Mark as unread
          </button>
        </form>
      )}
      {accepted && (
        <form method="post" action={`/submissions/${submission.id}/spam`}>
          <CsrfInput token={csrf} />
          <BackField to={backs?.onward} />
          <button type="submit" class="secondary" data-key="#">
            Mark as spam
          </button>
        </form>
      )}
      <form method="get" action="/submissions/delete">
        <input type="hidden" name="id" value={submission.id} />
        <input
          type="hidden"
          name="back"
          value={backs?.onward ?? (submission.status === 'held' ? `${formPath(submission.formId)}/held` : formPath(submission.formId))}
        />
        <button type="submit" class="secondary">
          Delete
        </button>
      </form>
    </div>
  );
}

/** The team's note: a plain form; an empty note removes it. */
export function NotePanel({ submissionId, note, csrf, backs }: { submissionId: string; note: string | null; csrf: string; backs?: Backs }) {
  return (
    <Panel title="Note" id="note">
      <form method="post" action={`/submissions/${submissionId}/note`}>
        <CsrfInput token={csrf} />
        <BackField to={backs?.here} />
        <div class="field">
          <label for="field-note">Note for your team</label>
          <p class="hint" id="field-note-hint">
            Shown in the inbox beside the submission. At most {NOTE_LIMIT.toLocaleString('en-US')} characters; empty removes it.
          </p>
          <textarea id="field-note" name="note" rows={3} maxLength={NOTE_LIMIT} aria-describedby="field-note-hint">
            {note ?? ''}
          </textarea>
        </div>
        <button type="submit" class="secondary">
          Save note
        </button>
      </form>
    </Panel>
  );
}

/** Every field with its whole value: nested objects as nested lists of terms, arrays as numbered lists. */
export function FieldList({ data }: { data: unknown }) {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return <Value value={data} />;
  const entries = Object.entries(data);
  if (entries.length === 0) return <p class="muted">No fields.</p>;
  return (
    <dl class="fields">
      {entries.map(([name, value]) => (
        <div key={name}>
          <dt>{fieldLabel(name)}</dt>
          <dd>
            <Value value={value} />
          </dd>
        </div>
      ))}
    </dl>
  );
}

function Value({ value }: { value: unknown }) {
  if (value === null || value === undefined) return <span class="muted">(empty)</span>;
  if (Array.isArray(value)) {
    if (value.length === 0) return <span class="muted">(none)</span>;
    // ticked boxes, chosen options: a set of choices, not a numbered list
    if (value.every((item) => typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean'))
      return (
        <ul class="choices">
          {value.map((item, i) => (
            <li key={i}>{String(item) === '' ? <span class="muted">(empty)</span> : String(item)}</li>
          ))}
        </ul>
      );
    return (
      <ol class="values">
        {value.map((item, i) => (
          <li key={i}>
            <Value value={item} />
          </li>
        ))}
      </ol>
    );
  }
  // a file: its name (the Files panel lists its type and size and downloads it)
  if (isFileValue(value)) return <span class="value-text">{`${value.name} (file)`}</span>;
  if (typeof value === 'object') return <FieldList data={value} />;
  const text = String(value);
  if (text === '') return <span class="muted">(empty)</span>;
  return <span class="value-text">{text}</span>;
}
