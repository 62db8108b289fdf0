import type { DigestSettings } from '../../services/spam-digests.js';
import type { Workspace } from '../../services/workspaces.js';
import type { FieldErrors } from '../field-errors.js';
import { ButtonLink, CsrfInput, Field, FormError, Panel } from './components.js';
import { type Frame, Layout } from './layout.js';
import { RequireSecondFactorForm } from './two-factor-pages.js';
import { AssignedDigestPanel } from './assigned-digest-panel.js';
import { SpamDigestPanel } from './spam-digest-panel.js';
import { PlanSummary } from './workspace-page.js';

interface SettingsPageProps {
  frame: Frame;
  workspace: Workspace;
  formCount: number;
  memberCount: number;
  /** The name as typed, when a rename was refused. */
  name?: string;
  errors?: FieldErrors;
  /** The workspace's spam digest as this member sees it: as saved, or as sent when refused. */
  digest: DigestSettings;
  digestErrors?: FieldErrors;
  /** Whether this member gets the daily digest of what is open and assigned to them. */
  assignedDigest: boolean;
  /** The viewer is one of its owners: only they may delete it. */
  owner?: boolean;
  /** How many members have no second factor yet. */
  withoutSecondFactor: number;
}

/** A workspace's settings: its name, its spam digest, the member's digest of what is assigned to them, its plan with what is left of the allowance (its usage in team mode), and, for owners, deleting it. */
export function SettingsPage({
  frame,
  workspace,
  formCount,
  memberCount,
  name,
  errors,
  digest,
  digestErrors,
  assignedDigest,
  owner = false,
  withoutSecondFactor,
}: SettingsPageProps) {
  return (
    <Layout title="Workspace settings" frame={frame}>
      <Panel title="General">
        <FormError errors={errors} />
        <form method="post" action={`/w/${workspace.id}/settings`} noValidate>
          <CsrfInput token={frame.csrf} />
          <Field label="Name" name="name" value={name ?? workspace.name} errors={errors} hint="1 to 128 characters." required />
          <button type="submit">Rename workspace</button>
        </form>
      </Panel>
      <SpamDigestPanel workspaceId={workspace.id} csrf={frame.csrf} settings={digest} errors={digestErrors} />
      <AssignedDigestPanel workspaceId={workspace.id} csrf={frame.csrf} mine={assignedDigest} />
      <PlanSummary workspace={workspace} formCount={formCount} memberCount={memberCount} plans={frame.plans} />
      {owner && <TwoFactorPanel workspace={workspace} csrf={frame.csrf} withoutSecondFactor={withoutSecondFactor} />}
      <Panel title="Automations" id="automations">
        <p>Send submissions to Zapier, Make, n8n, Activepieces or Pipedream: automation-tool keys, and what the platforms subscribed to.</p>
        <p>
          <ButtonLink variant="secondary" href={`/w/${workspace.id}/automations`}>
            Automations
          </ButtonLink>
        </p>
      </Panel>
      {owner && (
        <Panel title="Audit log" id="audit">
          <p>Who changed what in this workspace, when and from where; every export, download, erasure and deletion of submissions.</p>
          <p>
            <ButtonLink variant="secondary" href={`/w/${workspace.id}/audit`}>
              Audit log
            </ButtonLink>
          </p>
        </Panel>
      )}
      <Panel title="Erase a person">
        <p>Delete every submission that holds someone’s email address, when they ask you to: you see how many first.</p>
        <p>
          <ButtonLink variant="danger" href={`/w/${workspace.id}/erase`}>
            Erase a person’s submissions…
          </ButtonLink>
        </p>
      </Panel>
      <Panel title="Identifier">
        <p class="muted">The API and the command line name this workspace by its ID.</p>
        <p>
          <code>{workspace.id}</code>
        </p>
      </Panel>
      {owner && (
        <Panel title="Delete workspace" id="delete">
          <p>Delete this workspace with its forms, submissions and files, for everyone in its team. You see what goes with it first.</p>
          <p>
            <ButtonLink variant="danger" href={`/w/${workspace.id}/delete`}>
              Delete this workspace…
            </ButtonLink>
          </p>
        </Panel>
      )}
    </Layout>
  );
}

/** Owners require a second factor of every member: one without is sent to set one up at their next page. */
function TwoFactorPanel({ workspace, csrf, withoutSecondFactor }: { workspace: Workspace; csrf: string; withoutSecondFactor: number }) {
  return (
    <Panel title="Two-factor sign-in" id="two-factor">
      <p>
        {withoutSecondFactor === 0
          ? 'Every member has a second factor (an authenticator app or a passkey).'
          : `${withoutSecondFactor} member${withoutSecondFactor === 1 ? ' has' : 's have'} no second factor yet.`}{' '}
        When it is required, a member without one must set one up before anything else in the dashboard.
      </p>
      <RequireSecondFactorForm
        action={`/w/${workspace.id}/settings/two-factor`}
        csrf={csrf}
        required={workspace.requireTwoFactor === 1}
        label="Require a second factor of every member"
      />
    </Panel>
  );
}
