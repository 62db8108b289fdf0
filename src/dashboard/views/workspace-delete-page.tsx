import { megabytes } from '../../services/form-uploads.js';
import type { WorkspaceDeletionCounts } from '../../services/workspace-deletion.js';
import type { Workspace } from '../../services/workspaces.js';
import type { FieldErrors } from '../field-errors.js';
import { Button, ButtonLink, CsrfInput, Field, FormError, Panel } from './components.js';
import { type Frame, Layout } from './layout.js';

/** "1 form", "3 submissions". */
function count(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en')} ${n === 1 ? one : many}`;
}

interface DeleteWorkspaceProps {
  frame: Frame;
  workspace: Workspace;
  counts: WorkspaceDeletionCounts;
  /** What was typed, when it was not the name. */
  typed?: string;
  errors?: FieldErrors;
}

/** Asks an owner before deleting a workspace: everything that goes with it, then its name typed again. */
export function DeleteWorkspacePage({ frame, workspace, counts, typed = '', errors }: DeleteWorkspaceProps) {
  const inbox = counts.submissions - counts.spam - counts.held;
  const split = [`${inbox.toLocaleString('en')} in the inbox`, `${counts.spam.toLocaleString('en')} spam`];
  if (counts.held > 0) split.push(`${counts.held.toLocaleString('en')} held`);
  const settings = `/w/${workspace.id}/settings`;
  return (
    <Layout title={`Delete “${workspace.name}”?`} frame={frame}>
      <p class="breadcrumb">
        <a href={settings}>← Workspace settings</a>
      </p>
      <Panel title="What goes with it" id="consequences">
        <p>
          <strong>This cannot be undone.</strong> Deleted with the workspace, for good:
        </p>
        <ul class="consequences">
          <li>
            {count(counts.forms, 'form')}, with {counts.forms === 1 ? 'its' : 'their'} email templates, settings and secret keys
          </li>
          <li>
            {count(counts.submissions, 'submission')}
            {counts.submissions > 0 && ` (${split.join(', ')})`}
          </li>
          <li>
            {count(counts.files, 'stored file')}
            {counts.files > 0 && ` (${megabytes(counts.fileBytes)})`}, removed from storage
          </li>
          <li>
            {count(counts.pendingDeliveries, 'delivery', 'deliveries')} (email, webhook, Slack) waiting to go out:{' '}
            {counts.pendingDeliveries === 1 ? 'it is' : 'they are'} not sent
          </li>
          <li>
            {count(counts.otherMembers, 'other member')} of the team {counts.otherMembers === 1 ? 'loses' : 'lose'} it; their accounts stay
          </li>
          <li>
            {count(counts.pendingInvitations, 'pending invitation')}: {counts.pendingInvitations === 1 ? 'its link stops' : 'their links stop'} working
          </li>
        </ul>
        <p>
          No API token goes: tokens belong to people, not to a workspace, and simply stop reaching this one. Pages that post to its forms get “not found”.
          Submissions already sent by email, webhook or Slack stay where they arrived. Export what you want to keep first.
        </p>
      </Panel>
      <Panel title="Delete the workspace" id="confirm">
        <FormError errors={errors} />
        <form method="post" action={`/w/${workspace.id}/delete`} noValidate>
          <CsrfInput token={frame.csrf} />
          <Field
            label="Name of the workspace"
            name="confirmName"
            value={typed}
            errors={errors}
            hint={`Type “${workspace.name}” to confirm.`}
            autocomplete="off"
            required
          />
          <div class="actions">
            <Button type="submit" variant="danger">
              Delete workspace
            </Button>
            <ButtonLink variant="secondary" href={settings}>
              Cancel
            </ButtonLink>
          </div>
        </form>
      </Panel>
    </Layout>
  );
}
