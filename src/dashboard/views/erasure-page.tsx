import type { ErasurePreview } from '../../services/erasure.js';
import type { Workspace } from '../../services/workspaces.js';
import type { FieldErrors } from '../field-errors.js';
import { ConfirmForm, CsrfInput, Field, FormError, Panel } from './components.js';
import { type Frame, Layout } from './layout.js';

interface ErasurePageProps {
  frame: Frame;
  workspace: Workspace;
  /** The address as typed, shown again. */
  email?: string;
  errors?: FieldErrors;
  /** What was found for the address: then the page asks before deleting. */
  preview?: ErasurePreview;
}

const plural = (n: number) => (n === 1 ? '1 submission' : `${n.toLocaleString('en')} submissions`);

/**
 * Erasing a person: an address, then how many of the workspace's submissions hold it, then the one
 * button that deletes them. Each step is a POST, so the address never sits in an address bar, a
 * history or a log.
 */
export function ErasurePage({ frame, workspace, email, errors, preview }: ErasurePageProps) {
  const base = `/w/${workspace.id}/erase`;
  return (
    <Layout title="Erase a person’s submissions" frame={frame}>
      <Panel title="Find their submissions" id="find">
        <p>
          When someone asks you to delete what they sent (a GDPR erasure request, for one), enter their email address. Every submission of the{' '}
          <strong>{workspace.name}</strong> workspace that holds it is found: in any field, in any form, in the inbox, in spam and held ones. You see how many
          before anything is deleted.
        </p>
        <FormError errors={errors} />
        <form method="post" action={`${base}/preview`} noValidate>
          <CsrfInput token={frame.csrf} />
          <Field
            label="Email address"
            name="email"
            type="email"
            value={email ?? ''}
            errors={errors}
            autocomplete="off"
            hint="Found whatever its capitals, alone or inside a longer text; never inside a longer address (ann@example.com does not find joann@example.com)."
            required
          />
          <button type="submit">Find submissions</button>
        </form>
      </Panel>
      {preview && <Found preview={preview} csrf={frame.csrf} action={base} team={frame.plans.team} />}
    </Layout>
  );
}

function Found({ preview, csrf, action, team }: { preview: ErasurePreview; csrf: string; action: string; team: boolean }) {
  if (preview.submissions === 0) {
    return (
      <Panel title="Nothing found" id="found">
        <p role="status">
          No submission of this workspace holds <strong>{preview.email}</strong>. There is nothing to delete.
        </p>
      </Panel>
    );
  }
  return (
    <Panel title="Are you sure?" id="found">
      <p role="status">
        {`${plural(preview.submissions)} of this workspace ${preview.submissions === 1 ? 'holds' : 'hold'} `}
        <strong>{preview.email}</strong>.
      </p>
      <p>
        <strong>This cannot be undone.</strong> {preview.submissions === 1 ? 'It goes' : 'They go'} for good, with the records of their emails, webhooks and
        Slack messages, and any not sent yet are not sent. Export what you must keep first.{' '}
        {team ? 'The charts do not change.' : 'The allowance used and the charts do not change.'}
      </p>
      <ConfirmForm csrf={csrf} action={action} button={`Delete ${plural(preview.submissions)}`} cancel={action}>
        <input type="hidden" name="email" value={preview.email} />
      </ConfirmForm>
    </Panel>
  );
}
