import type { Form } from '../../services/forms.js';
import type { Workspace } from '../../services/workspaces.js';
import type { WorkspaceStats } from '../../services/stats.js';
import type { PlanRules } from '../../domain/plans.js';
import { uploadCeilings } from '../../domain/uploads.js';
import { megabytes } from '../../services/form-uploads.js';
import { DailyChart, describeDays, Sparkline } from './chart.js';
import { UnreadCount } from './form-layout.js';
import { ButtonLink, EmptyState, Panel, Time } from './components.js';
import { type Column, DataTable } from './data-table.js';
import { FormStateBadge } from './form-behaviour-panel.js';
import type { FormStateName } from '../../services/form-behaviour.js';
import { type Frame, Layout } from './layout.js';
import { PagerLinks } from './pager.js';

function number(n: number): string {
  return n.toLocaleString('en-US');
}

/** The plan, its limits and what is left of the allowance (the API's `submissionsQuota`); in team mode, only what the workspace holds. */
export function PlanSummary({ workspace, formCount, memberCount, plans }: { workspace: Workspace; formCount: number; memberCount: number; plans: PlanRules }) {
  if (plans.team) return <UsageSummary workspace={workspace} formCount={formCount} memberCount={memberCount} plans={plans} />;
  const limits = plans.limits(workspace.plan);
  const members = memberCount === 1 ? 'member' : 'members';
  return (
    <Panel title="Plan and allowance">
      <dl class="stats">
        <div class="plan-tile">
          <dt>Plan</dt>
          <dd>{plans.label(workspace.plan)}</dd>
        </div>
        {limits.unlimited ? (
          <div>
            <dt>Submissions received</dt>
            <dd>
              {number(workspace.submissionsUsed)}
              <span class="muted"> · no limit</span>
            </dd>
          </div>
        ) : (
          <div>
            <dt>Submissions left</dt>
            <dd>
              {number(plans.submissionsLeft(workspace.plan, workspace.submissionsUsed))}
              <span class="muted"> of {number(limits.submissions)}</span>
            </dd>
          </div>
        )}
        <div>
          <dt>Forms</dt>
          <dd>
            {number(formCount)}
            <span class="muted">{limits.unlimited ? ' · no limit' : ` of ${number(limits.forms)}`}</span>
          </dd>
        </div>
        <StorageStat workspace={workspace} plans={plans} />
        <div>
          <dt>Team members</dt>
          <dd>
            {number(memberCount)}
            <span class="muted">{limits.members === null ? ` ${members} · no limit` : ` of ${limits.members}`}</span>
          </dd>
        </div>
      </dl>
      {limits.members !== null && <p class="muted">Team members include pending invitations, as the plan’s limit counts them.</p>}
      {!plans.isUpgraded(workspace.plan) && (
        <p class="muted">The free plan has no autoresponder and no REST API; an upgraded workspace has both, 50,000 submissions and 100 forms.</p>
      )}
    </Panel>
  );
}

/** The workspace's stored files against its ceiling: the same in both modes (the ceiling is the installation's, not a plan's words). */
function StorageStat({ workspace, plans }: { workspace: Workspace; plans: PlanRules }) {
  return (
    <div>
      <dt>File storage used</dt>
      <dd>
        {megabytes(Number(workspace.fileBytes ?? 0))}
        <span class="muted"> of {megabytes(uploadCeilings(workspace.plan, plans.isUpgraded(workspace.plan)).storageBytes)}</span>
      </dd>
    </div>
  );
}

/** Team mode speaks no plans (issue 41, item 16): what the workspace holds, without a plan, an allowance or "no limit". */
function UsageSummary({ workspace, formCount, memberCount, plans }: { workspace: Workspace; formCount: number; memberCount: number; plans: PlanRules }) {
  return (
    <Panel title="Usage">
      <dl class="stats">
        <div>
          <dt>Submissions received</dt>
          <dd>{number(workspace.submissionsUsed)}</dd>
        </div>
        <div>
          <dt>Forms</dt>
          <dd>{number(formCount)}</dd>
        </div>
        <StorageStat workspace={workspace} plans={plans} />
        <div>
          <dt>Team members</dt>
          <dd>
            {number(memberCount)}
            <span class="muted"> {memberCount === 1 ? 'member' : 'members'}</span>
          </dd>
        </div>
      </dl>
    </Panel>
  );
}

interface WorkspacePageProps {
  frame: Frame;
  workspace: Workspace;
  /** This page of the workspace's forms, newest first. */
  forms: Form[];
  stats: WorkspaceStats;
  formCount: number;
  memberCount: number;
  /** The next page of forms, when there is one. */
  nextPage: string | null;
  /** Whether this is a later page (then a link leads back to the first). */
  paged: boolean;
  /** Each listed form's unread submissions (capped at UNREAD_CAP). */
  unread: Map<string, number>;
  /** Paused, closed or full forms get a badge (services/form-behaviour.ts). */
  states?: Map<string, FormStateName>;
}

/** A form's name (and state), its unread and this month's counts, when it last received one, its last 30 days. */
function formColumns(stats: WorkspaceStats, unread: Map<string, number>, states?: Map<string, FormStateName>): Column<Form>[] {
  return [
    {
      label: 'Name',
      cell: (form) => (
        <>
          <a href={`/forms/${form.id}`}>{form.name}</a>
          <FormStateBadge state={states?.get(form.id)} />
        </>
      ),
    },
    { label: 'New', cell: (form) => (unread.get(form.id) ? <UnreadCount count={unread.get(form.id)!} /> : <span class="muted">0</span>) },
    { label: 'This month', cell: (form) => number(stats.forms.get(form.id)?.monthAccepted ?? 0) },
    { label: 'Spam caught', cell: (form) => number(stats.forms.get(form.id)?.monthSpam ?? 0) },
    { label: 'Last submission', cell: (form) => <Time ms={stats.forms.get(form.id)?.lastSubmissionAt ?? null} empty="None yet" /> },
    {
      label: 'Last 30 days',
      cell: (form) => {
        const summary = stats.forms.get(form.id);
        return summary && <Sparkline days={summary.days} />;
      },
    },
  ];
}

/** A workspace's home: its plan, its submissions per day, and its forms with their counts. */
export function WorkspacePage({ frame, workspace, forms, stats, formCount, memberCount, nextPage, paged, unread, states }: WorkspacePageProps) {
  const newForm = <ButtonLink href={`/w/${workspace.id}/forms/new`}>New form</ButtonLink>;
  return (
    <Layout title={workspace.name} frame={frame}>
      <Panel title="Forms">
        {formCount > 0 && (
          <div class="actions page-actions">
            {newForm}
            <a href={`/w/${workspace.id}/submissions`}>All submissions</a>
          </div>
        )}
        {forms.length === 0 ? (
          <EmptyState>
            <p>
              No forms yet. A form is an address your website’s HTML form posts to: each submission is kept here, emailed to whoever you choose, and can be sent
              on to a webhook or Slack. Create one, then copy its ready-made HTML into your page.
            </p>
            <p>{newForm}</p>
          </EmptyState>
        ) : (
          <DataTable label="Forms" class="forms-list" columns={formColumns(stats, unread, states)} rows={forms} rowKey={(form) => form.id} />
        )}
        <PagerLinks pager={{ next: nextPage, newest: paged ? `/w/${workspace.id}` : null }} label="Pages of forms" firstText="First page" />
        {forms.length > 0 && (
          <p class="muted">
            “This month” counts the calendar month in UTC: accepted submissions{frame.plans.team ? '' : ', held ones included'}; spam caught is counted apart.
            “New” counts the unread ones in the inbox.
          </p>
        )}
      </Panel>
      {formCount > 0 && (
        <details class="panel chart-details">
          <summary class="chart-details-head">
            <span class="chart-details-title">Submissions, last 30 days</span> <span class="muted chart-details-summary">{describeDays(stats.days)}</span>
          </summary>
          <DailyChart days={stats.days} id="workspace-chart" subject={`all forms of ${workspace.name}`} />
          <p class="muted">
            Counted per day in UTC, today included. Spam is what the filter caught{frame.plans.team ? '.' : '; held submissions count as accepted.'}
          </p>
        </details>
      )}
      <PlanSummary workspace={workspace} formCount={formCount} memberCount={memberCount} plans={frame.plans} />
    </Layout>
  );
}
