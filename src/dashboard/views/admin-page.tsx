import type { AccountSummary, WorkspaceSummary } from '../../services/admin.js';
import type { DeliveriesStatus } from '../../services/delivery-pause.js';
import { DeliveriesSwitchPanel } from './deliveries-switch-panel.js';
import { submissionsLeft } from '../../domain/plans.js';
import { EmptyState, Panel, Time } from './components.js';
import { type Frame, Layout } from './layout.js';
import { type MailCheck, MailPanel } from './mail-panel.js';
import { PlanForm } from './plan-form.js';

interface AdminPageProps {
  frame: Frame;
  accounts: AccountSummary[];
  workspaces: WorkspaceSummary[];
  /** Links to the next page of each list, null on the last page. */
  next: { accounts: string | null; workspaces: string | null };
  /** This page's own address, where a plan change comes back to. */
  back: string;
  /** A refused plan change: the workspace and the message shown beside its plan. */
  planError?: { workspaceId: string; message: string };
  mail: MailCheck;
  deliveries: DeliveriesStatus;
}

const number = (n: number) => n.toLocaleString('en-US');

function Accounts({ accounts }: { accounts: AccountSummary[] }) {
  if (accounts.length === 0) return <EmptyState>No accounts on this page.</EmptyState>;
  return (
    <div class="table-wrap listing">
      <table class="stack">
        <thead>
          <tr>
            <th scope="col">Email</th>
            <th scope="col">Created</th>
            <th scope="col">Workspaces</th>
          </tr>
        </thead>
        <tbody>
          {accounts.map((a) => (
            <tr key={a.id}>
              <td data-label="Email">
                <span>
                  {a.email} {a.isAdmin && <span class="badge">Admin</span>}
                </span>
              </td>
              <td data-label="Created">
                <Time ms={a.createdAt} />
              </td>
              <td data-label="Workspaces">{number(a.workspaceCount)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Workspaces({
  workspaces,
  csrf,
  back,
  planError,
}: {
  workspaces: WorkspaceSummary[];
  csrf: string;
  back: string;
  planError?: AdminPageProps['planError'];
}) {
  if (workspaces.length === 0) return <EmptyState>No workspaces on this page.</EmptyState>;
  return (
    <div class="table-wrap listing">
      <table class="stack">
        <thead>
          <tr>
            <th scope="col">Workspace</th>
            <th scope="col">Owner</th>
            <th scope="col">Submissions</th>
            <th scope="col">Members</th>
            <th scope="col">Plan</th>
          </tr>
        </thead>
        <tbody>
          {workspaces.map((w) => (
            <tr key={w.id}>
              <td data-label="Workspace">
                <div>
                  {w.name}
                  <br />
                  <code class="muted">{w.id}</code>
                </div>
              </td>
              <td data-label="Owner">{w.ownerEmail}</td>
              <td data-label="Submissions">
                <div>
                  {number(w.submissionsUsed)} used
                  <br />
                  <span class="muted">{number(submissionsLeft(w.plan, w.submissionsUsed))} left</span>
                </div>
              </td>
              <td data-label="Members">{number(w.memberCount)}</td>
              <td data-label="Plan">
                <div>
                  <p class="plan-now">
                    <span class={w.plan === 'FREE' ? 'badge neutral' : 'badge'}>{w.plan}</span>
                  </p>
                  <PlanForm workspace={w} csrf={csrf} back={back} error={planError?.workspaceId === w.id ? planError.message : undefined} />
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The instance admin's page: every account and workspace, and each workspace's plan. */
export function AdminPage({ frame, accounts, workspaces, next, back, planError, mail, deliveries }: AdminPageProps) {
  return (
    <Layout title="Instance admin" frame={frame}>
      <DeliveriesSwitchPanel status={deliveries} csrf={frame.csrf} />
      <MailPanel mail={mail} csrf={frame.csrf} />
      <Panel title="Accounts">
        <Accounts accounts={accounts} />
        {next.accounts && (
          <p class="pager">
            <a href={next.accounts}>Next page of accounts</a>
          </p>
        )}
      </Panel>
      <Panel title="Workspaces">
        <p class="muted">Changing a plan does what a payment does: held submissions are released and the owners are told by email.</p>
        <Workspaces workspaces={workspaces} csrf={frame.csrf} back={back} planError={planError} />
        {next.workspaces && (
          <p class="pager">
            <a href={next.workspaces}>Next page of workspaces</a>
          </p>
        )}
      </Panel>
    </Layout>
  );
}
