import type { Plan } from '../../domain/plans.js';
import type { FieldErrors } from '../field-errors.js';
import { Badge, ButtonLink, CsrfInput, EmptyState, Field, FormError, Panel } from './components.js';
import { DataTable, type MaybeColumn } from './data-table.js';
import { type Frame, Layout } from './layout.js';
import { PagerLinks } from './pager.js';

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
        <ButtonLink href="/workspaces/new">New workspace</ButtonLink>
      </p>
      {workspaces.length === 0 ? (
        <EmptyState>
          <p>You belong to no workspace yet. Create one to hold your forms, or ask a workspace’s owner to invite you.</p>
        </EmptyState>
      ) : (
        <DataTable label="Your workspaces" columns={workspaceColumns(frame.plans)} rows={workspaces} rowKey={(w) => w.id} wrapClass="panel listing" />
      )}
      <PagerLinks pager={{ next: nextPage, newest: null }} />
    </Layout>
  );
}

/** Name, plan and allowance (no plan in team mode: it counts what came in instead), and the viewer's role. */
function workspaceColumns(plans: Frame['plans']): MaybeColumn<WorkspaceListItem>[] {
  return [
    { label: 'Name', cell: (w) => <a href={`/w/${w.id}`}>{w.name}</a> },
    !plans.team && { label: 'Plan', cell: (w) => plans.label(w.plan) },
    plans.team
      ? { label: 'Submissions received', cell: (w) => <span>{w.submissionsUsed.toLocaleString('en-US')}</span> }
      : {
          label: 'Submissions left',
          cell: (w) => (
            <span>
              {plans.submissionsLeft(w.plan, w.submissionsUsed).toLocaleString('en-US')}
              <span class="muted"> of {plans.limits(w.plan).submissions.toLocaleString('en-US')}</span>
            </span>
          ),
        },
    {
      label: 'Your role',
      cell: (w) => (
        <span>
          <Badge tone={w.role === 'owner' ? 'accent' : 'neutral'}>{w.role === 'owner' ? 'Owner' : 'Member'}</Badge>
        </span>
      ),
    },
  ];
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
