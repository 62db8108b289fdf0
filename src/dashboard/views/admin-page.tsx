import type { AccountSummary, WorkspaceSummary } from '../../services/admin.js';
import type { DeliveriesStatus } from '../../services/delivery-pause.js';
import { DeliveriesSwitchPanel } from './deliveries-switch-panel.js';
import type { InstanceHealth } from '../../services/instance-health.js';
import { type InstanceSettingsView, TEAM_MODE_WITH_OPEN_SIGNUP } from '../../services/instance-settings.js';
import { planLabel, type PlanRules } from '../../domain/plans.js';
import { Badge, Breakable, Button, ButtonLink, CsrfInput, EmptyState, Panel, TextArea, Time } from './components.js';
import { type Column, DataTable, type MaybeColumn } from './data-table.js';
import { type Frame, Layout } from './layout.js';
import { RequireSecondFactorForm } from './two-factor-pages.js';
import { type MailCheck, MailPanel } from './mail-panel.js';
import { PagerLinks } from './pager.js';
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
  health: InstanceHealth;
  settings: InstanceSettingsView;
  settingErrors: SettingErrors;
}

/** A refused setting: the message shown beside it, and what was typed. */
export interface SettingErrors {
  usage?: string;
  webhookAllow?: string;
  webhookAllowText?: string;
}

const number = (n: number) => n.toLocaleString('en-US');

function Accounts({ accounts }: { accounts: AccountSummary[] }) {
  if (accounts.length === 0) return <EmptyState>No accounts on this page.</EmptyState>;
  return <DataTable label="Accounts" columns={ACCOUNT_COLUMNS} rows={accounts} rowKey={(a) => a.id} wrapClass="listing" />;
}

const ACCOUNT_COLUMNS: Column<AccountSummary>[] = [
  {
    label: 'Email',
    cell: (a) => (
      <span>
        {a.email} {a.isAdmin && <Badge>Admin</Badge>}
        {a.disabledAt !== null && <Badge tone="neutral">Disabled</Badge>}
      </span>
    ),
  },
  { label: 'Created', cell: (a) => <Time ms={a.createdAt} /> },
  { label: 'Workspaces', cell: (a) => number(a.workspaceCount) },
  {
    label: 'Actions',
    cell: (a) =>
      a.isAdmin ? (
        <span class="muted">You</span>
      ) : (
        <a href={`/admin/accounts/${a.id}`} aria-label={`Disable or delete ${a.email}`}>
          Disable or delete
        </a>
      ),
  },
];

function Workspaces({
  workspaces,
  csrf,
  back,
  planError,
  plans,
  showPlans,
}: {
  workspaces: WorkspaceSummary[];
  csrf: string;
  back: string;
  planError?: AdminPageProps['planError'];
  plans: PlanRules;
  /** Team mode speaks no plans (issue 41, item 16), unless open sign-up needs Change plan to vouch for a stranger's workspace. */
  showPlans: boolean;
}) {
  if (workspaces.length === 0) return <EmptyState>No workspaces on this page.</EmptyState>;
  const columns: MaybeColumn<WorkspaceSummary>[] = [
    {
      label: 'Workspace',
      cell: (w) => (
        <div>
          {w.name}
          <br />
          <code class="muted">{w.id}</code>
        </div>
      ),
    },
    { label: 'Owner', cell: (w) => <Breakable text={w.ownerEmail} /> },
    {
      label: 'Submissions',
      cell: (w) => (
        <div>
          {number(w.submissionsUsed)} {plans.team ? 'received' : 'used'}
          <br />
          {!plans.team && <span class="muted">{`${number(plans.submissionsLeft(w.plan, w.submissionsUsed))} left`}</span>}
        </div>
      ),
    },
    { label: 'Members', cell: (w) => number(w.memberCount) },
    showPlans && {
      label: 'Plan',
      cell: (w) => (
        <div>
          <p class="plan-now">
            <Badge tone={w.plan === 'FREE' ? 'neutral' : 'accent'}>{planLabel(w.plan)}</Badge>
          </p>
          <PlanForm workspace={w} csrf={csrf} back={back} error={planError?.workspaceId === w.id ? planError.message : undefined} />
        </div>
      ),
    },
  ];
  return <DataTable label="Workspaces" columns={columns} rows={workspaces} rowKey={(w) => w.id} wrapClass="listing" />;
}

const LANE_NAMES: Record<string, string> = { email: 'Email', webhook: 'Webhooks', slack: 'Slack' };
const KIND_NAMES: Record<string, string> = { notification: 'Notification email', autoresponder: 'Autoresponder', webhook: 'Webhook', slack: 'Slack' };

function age(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172_800) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86_400)} days`;
}

/** The version, the delivery backlog per lane, and the forms whose deliveries failed lately. */
function HealthPanel({ health }: { health: InstanceHealth }) {
  const lanes = Object.entries(health.backlog.lanes);
  return (
    <Panel title="Health" id="health">
      <p>
        Formgate <strong>{health.version}</strong>
      </p>
      <DataTable
        caption="Deliveries waiting (due, not yet delivered)"
        columns={[
          { label: 'Lane', cell: ([lane]) => LANE_NAMES[lane] ?? lane },
          { label: 'Waiting', cell: ([, b]) => `${number(b.due)}${b.capped ? ' or more' : ''}` },
          {
            label: 'Oldest waits',
            cell: ([, b]) => (b.oldestDueAt === null ? '—' : age(Math.max(0, Math.round((health.backlog.at - b.oldestDueAt) / 1000)))),
          },
        ]}
        rows={lanes}
        rowKey={([lane]) => lane}
      />
      <h3>Failing channels (last 7 days)</h3>
      {health.failing.length === 0 ? (
        <p class="muted">No delivery has failed in the last 7 days.</p>
      ) : (
        <ul class="health-list">
          {health.failing.map((f) => (
            <li key={`${f.formId}-${f.kind}`}>
              <a href={`/forms/${f.formId}/deliveries`}>
                {f.formName} ({f.workspaceName})
              </a>
              : {KIND_NAMES[f.kind] ?? f.kind}, {number(f.failed)} failed, last <Time ms={f.lastFailedAt} />
              {f.lastError && (
                <>
                  {' '}
                  — <span class="muted">{f.lastError.slice(0, 200)}</span>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </Panel>
  );
}

/** Team or hosting mode, the admin's to change unless FORMGATE_DEFAULT_PLAN decides. */
function UsagePanel({ settings, csrf, error }: { settings: InstanceSettingsView; csrf: string; error?: string }) {
  if (settings.defaultPlanFromEnvironment) {
    return (
      <Panel title="How this installation is used" id="usage">
        <p>Hosting forms for others: FORMGATE_DEFAULT_PLAN is set, so plans and their limits apply and new workspaces start on its plan.</p>
        <p class="muted">Unset FORMGATE_DEFAULT_PLAN and restart to choose here.</p>
      </Panel>
    );
  }
  const choices = [
    { value: 'team', label: 'For me and my team', hint: 'Every workspace has every feature and no limit, whatever its plan.' },
    { value: 'hosting', label: 'Hosting forms for others', hint: 'Plans apply: Free by default, with its limits; you upgrade workspaces below.' },
  ];
  return (
    <Panel title="How this installation is used" id="usage">
      {settings.openSignup && settings.usage === 'team' && (
        <p class="notice" id="team-mode-open-signup">
          {TEAM_MODE_WITH_OPEN_SIGNUP}
        </p>
      )}
      <form method="post" action="/admin/usage">
        <CsrfInput token={csrf} />
        <fieldset class="usage-choice" aria-describedby={error ? 'usage-error' : undefined}>
          <legend>This installation is</legend>
          {choices.map((c) => (
            <div class="field check" key={c.value}>
              <input
                id={`usage-${c.value}`}
                type="radio"
                name="usage"
                value={c.value}
                checked={settings.usage === c.value}
                aria-describedby={`usage-${c.value}-hint`}
              />
              <label for={`usage-${c.value}`}>{c.label}</label>
              <p class="hint" id={`usage-${c.value}-hint`}>
                {c.hint}
              </p>
            </div>
          ))}
          {error && (
            <p class="error" id="usage-error">
              {error}
            </p>
          )}
        </fieldset>
        <Button type="submit" variant="secondary">
          Save
        </Button>
      </form>
    </Panel>
  );
}

/** The private networks and hosts webhooks and chat channels may reach (n8n, Node-RED, Home Assistant, Mattermost on the LAN). */
function WebhookAllowPanel({ settings, csrf, errors }: { settings: InstanceSettingsView; csrf: string; errors: SettingErrors }) {
  return (
    <Panel title="Webhooks to private networks" id="webhook-allow">
      <p class="muted">
        Webhooks reach public addresses only. List networks (192.168.1.0/24, fd00::/8), addresses or host names (n8n.lan) that they may reach too, one per line
        or separated by commas. A listed host name may resolve to a private LAN address only (10/8, 172.16/12, 192.168/16, fc00::/7), never to this machine or a
        link-local one: list 127.0.0.1/32 to reach a service on this machine. The list serves the forms’ chat channels and test buttons too: a Slack or Discord
        channel may post to a listed host (a Mattermost or Rocket.Chat taking Slack’s format), over http or https.
      </p>
      {settings.webhookAllowEnvironment && (
        <p>
          Also allowed by FORMGATE_WEBHOOK_ALLOW: <code>{settings.webhookAllowEnvironment}</code>
        </p>
      )}
      <form method="post" action="/admin/webhook-allow">
        <CsrfInput token={csrf} />
        <TextArea
          label="Allowed networks and hosts"
          name="webhookAllow"
          value={errors.webhookAllowText ?? settings.webhookAllow}
          hint="Empty: public addresses only."
          errors={errors.webhookAllow ? { webhookAllow: errors.webhookAllow } : undefined}
        />
        <Button type="submit" variant="secondary">
          Save
        </Button>
      </form>
    </Panel>
  );
}

/** The admin requires a second factor of every account: one without is sent to set one up at its next page. */
function TwoFactorPanel({ required, csrf }: { required: boolean; csrf: string }) {
  return (
    <Panel title="Two-factor sign-in" id="two-factor">
      <p class="muted">
        When required, an account without a second factor (an authenticator app or a passkey) must set one up before anything else in the dashboard. Workspace
        owners can require it of their members too.
      </p>
      <RequireSecondFactorForm action="/admin/two-factor" csrf={csrf} required={required} label="Require a second factor of every account" />
    </Panel>
  );
}

/** The instance admin's page: every account and workspace, and each workspace's plan. */
export function AdminPage({ frame, accounts, workspaces, next, back, planError, mail, deliveries, health, settings, settingErrors }: AdminPageProps) {
  const showPlans = !frame.plans.team || settings.openSignup;
  return (
    <Layout title="Instance admin" frame={frame}>
      <DeliveriesSwitchPanel status={deliveries} csrf={frame.csrf} />
      <HealthPanel health={health} />
      <Panel title="Audit log" id="audit">
        <p>Who changed what, when and from where, in every workspace and in the installation’s settings.</p>
        <p>
          <ButtonLink variant="secondary" href="/admin/audit">
            Audit log
          </ButtonLink>
        </p>
      </Panel>
      <MailPanel mail={mail} csrf={frame.csrf} />
      <UsagePanel settings={settings} csrf={frame.csrf} error={settingErrors.usage} />
      <WebhookAllowPanel settings={settings} csrf={frame.csrf} errors={settingErrors} />
      <Panel title="Single sign-on" id="sign-in">
        <p>
          Sign-in by your OpenID Connect provider (Keycloak, Authentik, Google, Microsoft Entra ID), and single sign-on only:{' '}
          <a href="/admin/sign-in">Single sign-on settings</a>
        </p>
      </Panel>
      <TwoFactorPanel required={settings.requireTwoFactor} csrf={frame.csrf} />
      <Panel title="Accounts" id="accounts">
        <p class="muted">A disabled account cannot log in and its API tokens are refused; its workspaces keep receiving submissions.</p>
        <Accounts accounts={accounts} />
        <PagerLinks pager={{ next: next.accounts, newest: null }} label="Pages of accounts" nextText="Next page of accounts" />
      </Panel>
      <Panel title="Workspaces">
        {showPlans && <p class="muted">Changing a plan does what a payment does: held submissions are released and the owners are told by email.</p>}
        <Workspaces workspaces={workspaces} csrf={frame.csrf} back={back} planError={planError} plans={frame.plans} showPlans={showPlans} />
        <PagerLinks pager={{ next: next.workspaces, newest: null }} label="Pages of workspaces" nextText="Next page of workspaces" />
      </Panel>
    </Layout>
  );
}
