import type { FormRow } from '../../db/schema/form.js';
import type { WorkspaceRow } from '../../db/schema/workspace.js';
import { isUpgraded, planLimits, submissionsLeft } from '../../services/plans.js';
import { EmptyState, Panel, Time } from './components.js';
import { type Frame, Layout } from './layout.js';

const PLAN_NAMES: Record<string, string> = { FREE: 'Free', BUNDLE_50000: 'Upgraded (50,000 submissions)', DEALIFY: 'Upgraded (Dealify)' };

export function planName(plan: string): string {
  return PLAN_NAMES[plan] ?? plan;
}

function number(n: number): string {
  return n.toLocaleString('en-US');
}

/** The plan, its limits and what is left of the allowance (the API's `submissionsQuota`). */
export function PlanSummary({ workspace, formCount, memberCount }: { workspace: WorkspaceRow; formCount: number; memberCount: number }) {
  const limits = planLimits(workspace.plan);
  return (
    <Panel title="Plan and allowance">
      <dl class="stats">
        <div>
          <dt>Plan</dt>
          <dd>{planName(workspace.plan)}</dd>
        </div>
        <div>
          <dt>Submissions left</dt>
          <dd>
            {number(submissionsLeft(workspace.plan, workspace.submissionsUsed))}
            <span class="muted"> of {number(limits.submissions)}</span>
          </dd>
        </div>
        <div>
          <dt>Forms</dt>
          <dd>
            {number(formCount)}
            <span class="muted"> of {number(limits.forms)}</span>
          </dd>
        </div>
        <div>
          <dt>Team members</dt>
          <dd>
            {number(memberCount)}
            <span class="muted"> {limits.members === null ? 'unlimited' : `of ${limits.members}`}</span>
          </dd>
        </div>
      </dl>
      {limits.members !== null && <p class="muted">Team members include pending invitations, as the plan’s limit counts them.</p>}
      {!isUpgraded(workspace.plan) && (
        <p class="muted">The free plan has no autoresponder and no REST API; an upgraded workspace has both, 50,000 submissions and 100 forms.</p>
      )}
    </Panel>
  );
}

interface WorkspacePageProps {
  frame: Frame;
  workspace: WorkspaceRow;
  forms: FormRow[];
  formCount: number;
  memberCount: number;
  submitUrl: string;
}

/** A workspace's home: its plan and its forms. */
export function WorkspacePage({ frame, workspace, forms, formCount, memberCount, submitUrl }: WorkspacePageProps) {
  return (
    <Layout title={workspace.name} frame={frame}>
      <PlanSummary workspace={workspace} formCount={formCount} memberCount={memberCount} />
      <Panel title="Forms">
        {forms.length === 0 ? (
          <EmptyState>
            <p>No forms yet. A form gets an address your HTML form posts to; create one through the API or the CLI to start collecting submissions.</p>
          </EmptyState>
        ) : (
          <div class="table-wrap">
            <table class="stack">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Submit address</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {forms.map((form) => (
                  <tr key={form.id}>
                    <td data-label="Name">{form.name}</td>
                    <td data-label="Submit address">
                      <code>{`${submitUrl}/${form.id}`}</code>
                    </td>
                    <td data-label="Created">
                      <Time ms={form.createdAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Panel>
    </Layout>
  );
}
