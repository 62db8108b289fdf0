import type { Plan } from '../../domain/plans.js';
import type { FieldErrors } from '../field-errors.js';
import { CsrfInput, EmptyState, Field, FormError, Panel } from './components.js';
import { type Frame, Layout } from './layout.js';

export interface WorkspaceListItem {
  id: string;
  name: string;
  plan: Plan;
  submissionsUsed: number;
  role: 'owner' | 'member';
}

/** Every workspace of the account: where it switches to one, sees its plan (none in team mode), and starts a new one. */
export function WorkspacesPage({ frame, workspaces, nextPage }: { frame: Frame; workspaces: WorkspaceListItem[]; nextPage: string | null }) {
  return (
    <Layout title="Workspaces" frame={frame}>
      <p class="actions page-actions">
        <a class="button" href="/workspaces/new">
          New workspace
        </a>
      </p>
      {workspaces.length === 0 ? (
        <EmptyState>
          <p>You belong to no workspace yet. Create one to hold your forms, or ask a workspace’s owner to invite you.</p>
        </EmptyState>
      ) : (
        <div class="panel table-wrap listing">
          <table class="stack">
            <thead>
              <tr>
                <th scope="col">Name</th>
                {!frame.plans.team && <th scope="col">Plan</th>}
                <th scope="col">{frame.plans.team ? 'Submissions received' : 'Submissions left'}</th>
                <th scope="col">Your role</th>
              </tr>
            </thead>
            <tbody>
              {workspaces.map((w) => (
                <tr key={w.id}>
                  <td data-label="Name">
                    <a href={`/w/${w.id}`}>{w.name}</a>
                  </td>
                  {!frame.plans.team && <td data-label="Plan">{frame.plans.label(w.plan)}</td>}
                  <td data-label={frame.plans.team ? 'Submissions received' : 'Submissions left'}>
                    {frame.plans.team ? (
                      <span>{w.submissionsUsed.toLocaleString('en-US')}</span>
                    ) : (
                      <span>
                        {frame.plans.submissionsLeft(w.plan, w.submissionsUsed).toLocaleString('en-US')}
                        <span class="muted"> of {frame.plans.limits(w.plan).submissions.toLocaleString('en-US')}</span>
                      </span>
                    )}
                  </td>
                  <td data-label="Your role">
                    <span>
                      <span class={w.role === 'owner' ? 'badge' : 'badge neutral'}>{w.role === 'owner' ? 'Owner' : 'Member'}</span>
                    </span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {nextPage && (
        <p class="pager">
          <a href={nextPage}>Next page</a>
        </p>
      )}
    </Layout>
  );
}

/** The form that creates a workspace; a refusal (the one free workspace) is shown at the form. */
export function NewWorkspacePage({ frame, defaultPlan, name = '', errors }: { frame: Frame; defaultPlan: Plan; name?: string; errors?: FieldErrors }) {
  return (
    <Layout title="New workspace" frame={frame}>
      <Panel title="Workspace details">
        <p class="muted">
          A workspace holds forms and a team.{' '}
          {frame.plans.team
            ? 'Every workspace of this installation has every feature.'
            : defaultPlan === 'FREE'
              ? 'Each account has one free workspace; upgrade it to create more.'
              : `New workspaces start on the ${frame.plans.label(defaultPlan)} plan.`}
        </p>
        <FormError errors={errors} />
        <form method="post" action="/workspaces/new" noValidate>
          <CsrfInput token={frame.csrf} />
          <Field label="Name" name="name" value={name} errors={errors} hint="1 to 128 characters, e.g. the client or the site." required />
          <div class="actions">
            <button type="submit">Create workspace</button>
            <a href="/workspaces">Cancel</a>
          </div>
        </form>
      </Panel>
    </Layout>
  );
}
