import type { SubmissionDetail } from '../../services/submissions.js';
import type { SubmissionFile } from '../../services/submission-files.js';
import type { SubmissionTriage } from '../../services/triage.js';
import type { Label } from '../../domain/labels.js';
import { fieldsOf, whoOf } from '../../domain/submission-summary.js';
import { timeText } from '../submission-fields.js';
import { FileList } from './file-list.js';
import { Time } from './components.js';
import { formPath } from './form-layout.js';
import { LabelBadge } from './submission-list.js';
import { type Backs, FieldList, LabelsPanel, NotePanel, SubmissionActions, TriageFacts } from './submission-parts.js';

/** One submission as the inbox's pane shows it (routes/inbox.ts loads it through dashboard/reading-pane.ts). */
export interface ReadingPaneData {
  submission: SubmissionDetail;
  files: SubmissionFile[];
  note: string | null;
  replyTo: string | null;
  triage: SubmissionTriage;
  carried: Label[];
}

export interface ReadingPaneProps extends ReadingPaneData {
  csrf: string;
  team: boolean;
  /** Whom it can be assigned to, and the workspace's labels: the inbox has them already. */
  assignees: { id: string; email: string }[];
  labels: Label[];
  /** Where its changes lead back to, and the list without the pane. */
  backs: Backs;
  /** The newer and older submission of this page of the list, opened in the pane (null at its ends). */
  newer: string | null;
  older: string | null;
  /** Names the form: on a workspace's inbox, where the list's lines name it too. */
  showForm: boolean;
}

/** Whom the pane is headed by: the person, else when it came. */
export function paneWho(submission: Pick<SubmissionDetail, 'data' | 'createdAt'>): string {
  return whoOf(fieldsOf(submission.data)) ?? `Submission of ${timeText(submission.createdAt)}`;
}

/**
 * The submission beside the list at wide widths, alone at narrow ones (list, then the submission):
 * who, when, its triage and actions, every field, its files, labels and note; its deliveries and the
 * rest are on its own page. A real address each (`?submission=<id>`): it works without script, and
 * assets/reading-pane.js swaps it in without a reload.
 */
export function ReadingPane(props: ReadingPaneProps) {
  const { submission, backs, csrf } = props;
  const who = paneWho(submission);
  return (
    <section class="panel reading-pane" id="reading-pane" aria-labelledby="pane-heading" data-submission={submission.id}>
      <div class="pane-head">
        <a href={backs.list} class="pane-close" data-pane-close>
          <span class="pane-close-wide">Close</span>
          <span class="pane-close-narrow">← Back to the list</span>
        </a>
        <nav class="pane-nav" aria-label="Submissions beside this one">
          {props.newer && (
            <a href={props.newer} rel="prev" data-pane>
              ← Newer
            </a>
          )}
          {props.older && (
            <a href={props.older} rel="next" data-pane>
              Older →
            </a>
          )}
        </nav>
      </div>
      <h2 id="pane-heading" tabIndex={-1}>
        {who}
      </h2>
      <dl class="facts pane-facts">
        <dt>Received</dt>
        <dd>
          <Time ms={submission.createdAt} />
        </dd>
        {props.showForm && (
          <>
            <dt>Form</dt>
            <dd>
              <a href={formPath(submission.formId)}>{submission.formName}</a>
            </dd>
          </>
        )}
        <TriageFacts submissionId={submission.id} triage={props.triage} assignees={props.assignees} csrf={csrf} backs={backs} selectId="pane-assignee" />
        {props.carried.length > 0 && (
          <>
            <dt>Labels</dt>
            <dd class="pane-labels">
              {props.carried.map((label) => (
                <LabelBadge key={label.id} label={label} />
              ))}
            </dd>
          </>
        )}
      </dl>
      <SubmissionActions submission={submission} csrf={csrf} replyTo={props.replyTo} team={props.team} backs={backs} />
      <section class="pane-section" aria-labelledby="pane-fields-heading">
        <h3 id="pane-fields-heading" class="visually-hidden">
          Fields
        </h3>
        <FieldList data={submission.data} />
      </section>
      {props.files.length > 0 && (
        <section class="pane-section" aria-labelledby="pane-files-heading">
          <h3 id="pane-files-heading">Files</h3>
          <FileList submissionId={submission.id} files={props.files} />
        </section>
      )}
      <LabelsPanel submissionId={submission.id} labels={props.labels} carried={props.carried} csrf={csrf} workspaceId={submission.workspaceId} backs={backs} />
      <NotePanel submissionId={submission.id} note={props.note} csrf={csrf} backs={backs} />
      <p class="pane-more">
        <a href={`/submissions/${submission.id}`}>
          Its deliveries and details<span class="visually-hidden"> of the submission of {who}</span> →
        </a>
      </p>
    </section>
  );
}
