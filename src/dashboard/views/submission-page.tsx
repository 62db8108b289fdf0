import type { Workspace } from '../../services/workspaces.js';
import { type DeliveryRecord, writtenToFile } from '../../services/deliveries.js';
import { planLabel, planLimits } from '../../domain/plans.js';
import type { SubmissionDetail } from '../../services/submissions.js';
import { NOTE_LIMIT } from '../../services/submission-marks.js';
import { isFileValue } from '../../services/export-fields.js';
import type { SubmissionFile } from '../../services/submission-files.js';
import { whoOf } from '../../domain/submission-summary.js';
import { fieldLabel, timeText } from '../submission-fields.js';
import { fieldsOf } from '../../domain/submission-summary.js';
import type { SubmissionTriage } from '../../services/triage.js';
import { KeyboardHelp } from './keyboard-help.js';
import { LabelBadge } from './submission-list.js';
import type { Label } from '../../domain/labels.js';
import { FileList } from './file-list.js';
import { CsrfInput, Panel, Time } from './components.js';
import { FormLayout, formPath } from './form-layout.js';
import type { Frame } from './layout.js';
import { deliveryKindName, deliveryProtocol, folderAndFile } from './delivery-words.js';

interface SubmissionPageProps {
  frame: Frame;
  submission: SubmissionDetail;
  workspace: Pick<Workspace, 'plan' | 'submissionsUsed'>;
  deliveries: DeliveryRecord[];
  /** When quarantined spam is purged: its arrival plus the retention period. */
  expiresAt: number;
  /** FORMGATE_DELIVERY_RETENTION_DAYS: deliveries finished longer ago than this are no longer recorded; null: kept forever. */
  deliveryRetention: { days: number; keptSince: number } | null;
  /** The submission's files, stored and dropped, in the order sent. */
  files: SubmissionFile[];
  /** The team's note on it. */
  note: string | null;
  /** Whom Reply writes to (`_replyto`, or an `email` field), if anyone. */
  replyTo: string | null;
  /** The newer and older submissions of the form's inbox (accepted ones only). */
  neighbours: { newer: string | null; older: string | null };
  /** The form's unread submissions, for its tab (capped). */
  unread: number;
  /** Open or done, and who it is assigned to; whom it can be (issue 41). */
  triage: SubmissionTriage;
  assignees: { id: string; email: string }[];
  /** The workspace's labels, and those the submission carries. */
  labels: Label[];
  carried: Label[];
}

/** One submission: every field, when it came, its status and why, and each of its deliveries. */
export function SubmissionPage(props: SubmissionPageProps) {
  const {
    frame,
    submission,
    workspace,
    deliveries,
    expiresAt,
    deliveryRetention,
    files,
    note,
    replyTo,
    neighbours,
    unread,
    triage,
    assignees,
    labels,
    carried,
  } = props;
  const form = { id: submission.formId, name: submission.formName, workspaceId: submission.workspaceId, unread };
  const spam = submission.status === 'spam';
  const listPath = spam ? formPath(form.id, 'spam') : submission.status === 'held' ? `${formPath(form.id)}/held` : formPath(form.id);
  // headed by the person, as a mail client heads a message by its sender; by its time when the form asks no name or address
  const who = whoOf(fieldsOf(submission.data)) ?? `Submission of ${timeText(submission.createdAt)}`;
  return (
    <FormLayout
      frame={frame}
      form={form}
      tab={spam ? 'spam' : 'submissions'}
      title={who}
      heading={who}
      // under the person's name, the way back names the form (and the folder, when it is not the inbox)
      back={{ href: listPath, label: spam ? `${form.name}: spam` : submission.status === 'held' ? `${form.name}: held` : form.name }}
      scripts={['inbox-keys.js']}
    >
      {submission.status === 'accepted' && <Neighbours neighbours={neighbours} />}
      <Panel title="Submission" id="submission">
        <dl class="facts">
          <dt>Received</dt>
          <dd>
            <Time ms={submission.createdAt} />
          </dd>
          <dt>Form</dt>
          <dd>
            <a href={formPath(form.id)}>{form.name}</a>
          </dd>
          <dt>Status</dt>
          <dd>
            <StatusBadge status={submission.status} />
          </dd>
          {submission.status === 'accepted' && <TriageFacts submissionId={submission.id} triage={triage} assignees={assignees} csrf={frame.csrf} />}
          <dt>Id</dt>
          <dd>
            <code>{submission.id}</code>
          </dd>
        </dl>
        <StatusNote submission={submission} workspace={workspace} expiresAt={expiresAt} team={frame.plans.team} />
        <SubmissionActions submission={submission} csrf={frame.csrf} replyTo={replyTo} team={frame.plans.team} />
      </Panel>
      <Panel title="Fields" id="fields">
        <FieldList data={submission.data} />
      </Panel>
      {submission.status === 'accepted' && (
        <LabelsPanel submissionId={submission.id} labels={labels} carried={carried} csrf={frame.csrf} workspaceId={submission.workspaceId} />
      )}
      <NotePanel submissionId={submission.id} note={note} csrf={frame.csrf} />
      {files.length > 0 && (
        <Panel title="Files" id="files">
          <FileList submissionId={submission.id} files={files} />
        </Panel>
      )}
      <Panel title="Deliveries" id="deliveries">
        <Deliveries submission={submission} deliveries={deliveries} retention={deliveryRetention} />
      </Panel>
      {submission.status === 'accepted' && <KeyboardHelp />}
    </FormLayout>
  );
}

/** The submission's labels: a box for each of the workspace's, ticked when it carries it; one save. */
function LabelsPanel({
  submissionId,
  labels,
  carried,
  csrf,
  workspaceId,
}: {
  submissionId: string;
  labels: Label[];
  carried: Label[];
  csrf: string;
  workspaceId: string;
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
function TriageFacts({
  submissionId,
  triage,
  assignees,
  csrf,
}: {
  submissionId: string;
  triage: SubmissionTriage;
  assignees: { id: string; email: string }[];
  csrf: string;
}) {
  const action = `/submissions/${submissionId}/triage`;
  const done = triage.status === 'done';
  return (
    <>
      <dt>Triage</dt>
      <dd>
        <form method="post" action={action} class="triage-form">
          <CsrfInput token={csrf} />
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
        <label for="field-assignee">Assigned to</label>
      </dt>
      <dd>
        <form method="post" action={action} class="triage-form">
          <CsrfInput token={csrf} />
          <select id="field-assignee" name="assignee">
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

const STATUS_TEXT = { accepted: 'Accepted', held: 'Held', spam: 'Spam' } as const;

export function StatusBadge({ status }: { status: SubmissionDetail['status'] }) {
  return <span class={status === 'accepted' ? 'badge' : status === 'spam' ? 'badge danger' : 'badge neutral'}>{STATUS_TEXT[status]}</span>;
}

/** What a held or spam status means, and what changes it. */
function StatusNote({
  submission,
  workspace,
  expiresAt,
  team,
}: {
  submission: SubmissionDetail;
  workspace: SubmissionPageProps['workspace'];
  expiresAt: number;
  /** Team mode speaks no plans (issue 41, item 16). */
  team: boolean;
}) {
  if (submission.status === 'held') return team ? <TeamHeldExplanation /> : <HeldExplanation plan={workspace.plan} />;
  if (submission.status !== 'spam') return <FilterVerdict reasons={submission.spamReasons} />;
  return (
    <div class="notice">
      <p>
        <strong>The spam filter caught it.</strong> It is kept out of the inbox, never delivered, and removed on <Time ms={expiresAt} />.
      </p>
      <SpamReasons reasons={submission.spamReasons} />
    </div>
  );
}

/** Why the spam filter let a submission in: what it weighed, folded away (the reasons of older submissions were not kept). */
function FilterVerdict({ reasons }: { reasons: string[] }) {
  if (reasons.length === 0) return null;
  return (
    <details class="verdict">
      <summary>Why the spam filter let it in</summary>
      <p class="muted">A submission is spam at 10 points or more; these are what it scored. Mark as spam teaches the filter otherwise.</p>
      <SpamReasons reasons={reasons} />
    </details>
  );
}

/**
 * What a held submission is in team mode, which speaks no plans (issue 41, item 16): nothing is held
 * any more, but what was held while the installation hosted forms on plans stays held.
 */
export function TeamHeldExplanation() {
  return (
    <div class="notice">
      <p>
        <strong>Held:</strong> it came while this installation still limited how many submissions a workspace receives, after this workspace had reached its
        limit. It is kept, but not listed in the inbox or delivered. New submissions are no longer held.
      </p>
    </div>
  );
}

/** What holds a submission and what releases it (services/workspaces.ts setPlan; the allowance never resets by itself). */
export function HeldExplanation({ plan }: { plan: Workspace['plan'] }) {
  const allowance = planLimits(plan).submissions.toLocaleString('en-US');
  const held = planLimits(plan).held.toLocaleString('en-US');
  return (
    <div class="notice">
      <p>
        <strong>Held:</strong> it came after the workspace had used its allowance of {allowance} accepted submissions on the {planLabel(plan)} plan. It is kept,
        but not listed in the inbox or delivered yet.
      </p>
      <p>
        A larger allowance (an upgrade) releases held submissions oldest first, as far as it reaches; each is then listed and delivered. The allowance counts
        over the workspace’s life: it does not start again each month, and deleting submissions does not give any back.
      </p>
      <p>
        The workspace holds at most {held} submissions this way. Past them, new submissions are refused: the visitor is told that nothing was stored, and
        nothing is.
      </p>
    </div>
  );
}

/** The signals that caught a spam submission, as the filter worded them. */
export function SpamReasons({ reasons }: { reasons: string[] }) {
  if (reasons.length === 0) return <p class="muted">No reason was kept (it was caught before reasons were stored).</p>;
  return (
    <ul class="reasons">
      {reasons.map((reason) => (
        <li key={reason}>{reason}</li>
      ))}
    </ul>
  );
}

function SubmissionActions({ submission, csrf, replyTo, team }: { submission: SubmissionDetail; csrf: string; replyTo: string | null; team: boolean }) {
  if (submission.status === 'spam') {
    return (
      <form method="post" action={`/submissions/${submission.id}/not-spam`} class="actions">
        <CsrfInput token={csrf} />
        <input type="hidden" name="back" value={`/submissions/${submission.id}`} />
        <button type="submit">Not spam</button>
        <span class="muted">
          {team ? 'Moves it into the inbox: its deliveries go out.' : 'Moves it into the inbox: it counts against the allowance and its deliveries go out.'}
        </span>
      </form>
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
          <button type="submit" class="secondary" data-key="u">
            Mark as unread
          </button>
        </form>
      )}
      {accepted && (
        <form method="post" action={`/submissions/${submission.id}/spam`}>
          <CsrfInput token={csrf} />
          <button type="submit" class="secondary" data-key="#">
            Mark as spam
          </button>
        </form>
      )}
      <form method="get" action="/submissions/delete">
        <input type="hidden" name="id" value={submission.id} />
        <input type="hidden" name="back" value={submission.status === 'held' ? `${formPath(submission.formId)}/held` : formPath(submission.formId)} />
        <button type="submit" class="secondary">
          Delete
        </button>
      </form>
    </div>
  );
}

/** Previous (newer) and Next (older) in the inbox's order, newest first. */
function Neighbours({ neighbours }: { neighbours: SubmissionPageProps['neighbours'] }) {
  if (!neighbours.newer && !neighbours.older) return null;
  return (
    <nav class="pager neighbours" aria-label="Submissions of this form">
      {neighbours.newer ? (
        <a href={`/submissions/${neighbours.newer}`} rel="prev" data-key="k">
          ← Previous<span class="visually-hidden"> (newer)</span>
        </a>
      ) : (
        <span />
      )}
      {neighbours.older && (
        <a href={`/submissions/${neighbours.older}`} rel="next" data-key="j">
          Next<span class="visually-hidden"> (older)</span> →
        </a>
      )}
    </nav>
  );
}

/** The team's note: a plain form; an empty note removes it. */
function NotePanel({ submissionId, note, csrf }: { submissionId: string; note: string | null; csrf: string }) {
  return (
    <Panel title="Note" id="note">
      <form method="post" action={`/submissions/${submissionId}/note`}>
        <CsrfInput token={csrf} />
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
function FieldList({ data }: { data: unknown }) {
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

interface DeliveriesProps {
  submission: SubmissionDetail;
  deliveries: DeliveryRecord[];
  retention: SubmissionPageProps['deliveryRetention'];
}

function Deliveries({ submission, deliveries, retention }: DeliveriesProps) {
  if (deliveries.length === 0) {
    const why =
      submission.status === 'spam'
        ? 'Spam is never delivered. Marked Not spam, it gets the form’s deliveries.'
        : submission.status === 'held'
          ? 'Held submissions are delivered once released.'
          : retention && submission.createdAt < retention.keptSince
            ? `No longer recorded: finished deliveries are kept for ${retention.days} days, so this one’s (if it had any) were removed.`
            : 'None: the form sends no email notification, autoresponder, webhook or Slack message.';
    return <p class="muted">{why}</p>;
  }
  return (
    <div class="table-wrap listing">
      <table class="stack deliveries">
        <thead>
          <tr>
            <th scope="col">Delivery</th>
            <th scope="col">Status</th>
            <th scope="col">Tries</th>
            <th scope="col">Last result</th>
            <th scope="col">Next try</th>
          </tr>
        </thead>
        <tbody>
          {deliveries.map((d) => (
            <tr key={d.id}>
              <td data-label="Delivery">
                <div>
                  {deliveryKindName(d.kind)}
                  {(d.recipient || d.kind === 'autoresponder') && <span class="muted sub-line">to {d.recipient ?? 'the submitter'}</span>}
                </div>
              </td>
              <td data-label="Status">
                <DeliveryStatus delivery={d} />
              </td>
              <td data-label="Tries">{d.tries.length}</td>
              <td data-label="Last result">{lastResult(d)}</td>
              <td data-label="Next try">{d.nextTryAt ? <Time ms={Date.parse(d.nextTryAt)} /> : <span class="muted">—</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function DeliveryStatus({ delivery }: { delivery: DeliveryRecord }) {
  if (delivery.status === 'done') return writtenToFile(delivery) ? <span class="badge written">Written to a file</span> : <span class="badge">Delivered</span>;
  if (delivery.status === 'failed') return <span class="badge danger">Failed</span>;
  const sending = delivery.tries.at(-1)?.outcome === 'in_progress';
  return <span class="badge neutral">{sending ? 'Sending' : delivery.tries.length > 0 ? 'Retrying' : 'Waiting'}</span>;
}

/** The last try's answer: the receiver's status code (HTTP, or SMTP for email), its error, or that it went through. */
function lastResult(delivery: DeliveryRecord): string {
  const last = delivery.tries.filter((t) => t.outcome !== 'in_progress').at(-1);
  if (!last) return delivery.lastError ?? 'Not tried yet';
  const protocol = deliveryProtocol(delivery.kind);
  const status = last.statusCode !== null ? `${protocol} ${last.statusCode}` : null;
  if (last.writtenTo) return `Written to ${folderAndFile(last.writtenTo).folder}, not sent (no SMTP server is set up)`;
  if (last.error) return status ? `${status}: ${last.error}` : last.error;
  if (last.response) return `Sent: ${last.response}`;
  return status ? `${status}, sent` : last.outcome === 'ok' ? 'Sent' : 'Interrupted';
}
