import type { Workspace } from '../../services/workspaces.js';
import { type DeliveryRecord, writtenToFile } from '../../services/deliveries.js';
import { planLabel, planLimits } from '../../domain/plans.js';
import type { SubmissionDetail } from '../../services/submissions.js';
import type { SubmissionFile } from '../../services/submission-files.js';
import { whoOf } from '../../domain/submission-summary.js';
import { timeText } from '../submission-fields.js';
import { fieldsOf } from '../../domain/submission-summary.js';
import type { SubmissionTriage } from '../../services/triage.js';
import { KeyboardHelp } from './keyboard-help.js';
import { FieldList, LabelsPanel, NotePanel, SubmissionActions, TriageFacts } from './submission-parts.js';
import type { Label } from '../../domain/labels.js';
import { FileList } from './file-list.js';
import { type Column, DataTable } from './data-table.js';
import { Badge, Panel, Time } from './components.js';
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

interface DeliveriesProps {
  submission: SubmissionDetail;
  deliveries: DeliveryRecord[];
  retention: SubmissionPageProps['deliveryRetention'];
}

/** Each delivery of the submission: what, its status, its tries, the last answer, the next try. */
const DELIVERY_COLUMNS: Column<DeliveryRecord>[] = [
  {
    label: 'Delivery',
    cell: (d) => (
      <div>
        {deliveryKindName(d.kind)}
        {(d.recipient || d.kind === 'autoresponder') && <span class="muted sub-line">to {d.recipient ?? 'the submitter'}</span>}
      </div>
    ),
  },
  { label: 'Status', cell: (d) => <DeliveryStatus delivery={d} /> },
  { label: 'Tries', cell: (d) => d.tries.length },
  { label: 'Last result', cell: lastResult },
  { label: 'Next try', cell: (d) => (d.nextTryAt ? <Time ms={Date.parse(d.nextTryAt)} /> : <span class="muted">—</span>) },
];

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
    <DataTable columns={DELIVERY_COLUMNS} rows={deliveries} rowKey={(d) => d.id} class="deliveries" wrapClass="listing" label="Deliveries of this submission" />
  );
}

/** A delivery's state in the delivery log's tones (views/deliveries-page.tsx). */
function DeliveryStatus({ delivery }: { delivery: DeliveryRecord }) {
  if (delivery.status === 'done') return writtenToFile(delivery) ? <Badge tone="warning">Written to a file</Badge> : <Badge tone="success">Delivered</Badge>;
  if (delivery.status === 'failed') return <Badge tone="danger">Failed</Badge>;
  const sending = delivery.tries.at(-1)?.outcome === 'in_progress';
  return <Badge tone="neutral">{sending ? 'Sending' : delivery.tries.length > 0 ? 'Retrying' : 'Waiting'}</Badge>;
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
