import type { Workspace } from '../../services/workspaces.js';
import type { FieldErrors } from '../field-errors.js';
import { CsrfInput, Field, FormError, Panel } from './components.js';
import { type Frame, Layout } from './layout.js';

interface NewFormPageProps {
  frame: Frame;
  workspace: Workspace;
  formCount: number;
  name: string;
  /** Whether the new form emails its creator each submission (checked on a fresh page). */
  notifyMe: boolean;
  errors?: FieldErrors;
}

/** The one thing a new form needs: a name. Everything else is on its Settings page afterwards. */
export function NewFormPage({ frame, workspace, formCount, name, notifyMe, errors }: NewFormPageProps) {
  const limits = frame.plans.limits(workspace.plan);
  return (
    <Layout title="New form" frame={frame}>
      <p class="breadcrumb">
        <a href={`/w/${workspace.id}`}>← All forms</a>
      </p>
      <Panel title="Form details">
        <p class="muted">
          A form gets its own address; your page’s HTML form posts to it. The next page gives you that address and snippets to copy. {workspace.name} has{' '}
          {limits.unlimited
            ? `${formCount} ${formCount === 1 ? 'form' : 'forms'}, with no limit.`
            : `${formCount} of the ${limits.forms} forms its plan (${frame.plans.label(workspace.plan)}) allows.`}
        </p>
        <FormError errors={errors} />
        <form method="post" action={`/w/${workspace.id}/forms/new`} noValidate>
          <CsrfInput token={frame.csrf} />
          <Field
            label="Name"
            name="name"
            value={name}
            errors={errors}
            hint="1 to 128 characters, e.g. “Contact” or “Newsletter sign-up”; only you see it."
            required
          />
          <div class="field check">
            <input id="field-notifyMe" type="checkbox" name="notifyMe" value="on" checked={notifyMe} aria-describedby="field-notifyMe-hint" />
            <label for="field-notifyMe">Email each submission to me</label>
            <p class="hint" id="field-notifyMe-hint">
              Notifications go to {frame.account.email}; add or change recipients later on the form’s Settings page.
            </p>
          </div>
          <div class="actions">
            <button type="submit">Create form</button>
            <a href={`/w/${workspace.id}`}>Cancel</a>
          </div>
        </form>
      </Panel>
    </Layout>
  );
}
