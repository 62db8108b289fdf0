import { AUTOMATION_KEY_SCOPES, type HOOK_EVENTS, KEYS_PER_WORKSPACE } from '../../domain/hooks.js';
import type { ListedAutomationKey } from '../../services/automation-keys.js';
import type { ListedHook } from '../../services/hooks.js';
import type { FieldErrors } from '../field-errors.js';
import { Badge, Button, CsrfInput, EmptyState, Field, FormError, Panel, Time } from './components.js';
import { type Column, DataTable } from './data-table.js';
import type { IdentityCheck } from '../identity-check.js';
import { IdentityFields, PasskeyInsteadOfCode } from './token-form.js';
import { PASSKEY_SCRIPTS } from './passkey-forms.js';
import { type Frame, Layout } from './layout.js';
import { ShownOnce } from './token-pages.js';

interface AutomationsPageProps {
  frame: Frame;
  workspaceId: string;
  keys: ListedAutomationKey[];
  hooks: ListedHook[];
  /** The viewer owns the workspace: only owners make and revoke keys and remove subscriptions. */
  owner: boolean;
  /** How the key form asks the maker to prove it is them (password or provider, and the second factor). */
  identity: IdentityCheck;
  baseUrl: string;
  /** A refused new key: the name typed, and why. */
  typed?: string;
  errors?: FieldErrors;
}

const EVENT_TEXT: Record<(typeof HOOK_EVENTS)[number], string> = {
  'submission.created': 'New submission',
  'submission.spam': 'Spam caught',
  'submission.deleted': 'Submission deleted',
};

/**
 * A workspace's automations (issue 42): its automation-tool keys (the spec's), the subscriptions
 * the platforms made with them or with API tokens, how each last delivery went, and how to connect.
 */
export function AutomationsPage({ frame, workspaceId, keys, hooks, owner, identity, baseUrl, typed, errors }: AutomationsPageProps) {
  const path = `/w/${workspaceId}/automations`;
  const keyColumns: Column<ListedAutomationKey>[] = [
    { label: 'Name', cell: (key) => <strong>{key.name}</strong> },
    { label: 'Made by', cell: (key) => key.createdByEmail },
    { label: 'Created', cell: (key) => <Time ms={Number(key.createdAt)} /> },
    { label: 'Last used', cell: (key) => <Time ms={key.lastUsedAt === null ? null : Number(key.lastUsedAt)} /> },
    { label: 'Status', cell: (key) => (key.revokedAt === null ? <Badge>Active</Badge> : <Badge tone="neutral">Revoked</Badge>) },
    {
      label: 'Actions',
      hideLabel: true,
      cell: (key) =>
        owner &&
        key.revokedAt === null && (
          <form method="post" action={`${path}/keys/${encodeURIComponent(key.id)}/revoke`}>
            <CsrfInput token={frame.csrf} />
            <Button type="submit" variant="secondary" small>
              Revoke<span class="visually-hidden"> key “{key.name}”</span>
            </Button>
          </form>
        ),
    },
  ];
  const hookColumns: Column<ListedHook>[] = [
    { label: 'Event', cell: (hook) => EVENT_TEXT[hook.event] ?? hook.event },
    { label: 'Form', cell: (hook) => (hook.formId === null ? 'Every form' : <a href={`/forms/${hook.formId}`}>{hook.formName}</a>) },
    { label: 'Sent to', cell: (hook) => <code class="automation-target">{hook.targetUrl}</code> },
    { label: 'Made with', cell: (hook) => hook.madeWith ?? '—' },
    { label: 'Last delivery', cell: (hook) => <LastDelivery hook={hook} /> },
    {
      label: 'Actions',
      hideLabel: true,
      cell: (hook) =>
        owner && (
          <form method="post" action={`${path}/hooks/${encodeURIComponent(hook.id)}/delete`}>
            <CsrfInput token={frame.csrf} />
            <Button type="submit" variant="secondary" small>
              Remove<span class="visually-hidden"> subscription to {hook.targetUrl}</span>
            </Button>
          </form>
        ),
    },
  ];
  return (
    <Layout title="Automations" frame={frame} scripts={identity.askCode && identity.passkeys > 0 ? PASSKEY_SCRIPTS : undefined}>
      <p class="lead">
        Send this workspace’s submissions to Zapier, Make, n8n, Activepieces or Pipedream. The platform connects with an automation-tool key (or an API token)
        and subscribes to the events it needs; each event is then posted to it, signed and retried as a webhook is.
      </p>
      <Panel title="Automation-tool keys" id="keys">
        <p>
          A key reaches this workspace only. It may read its forms and submissions, delete submissions and subscribe to events (
          <code>{AUTOMATION_KEY_SCOPES.join(', ')}</code>), as the member who made it; it stops working if they leave. Revoking a key removes the subscriptions
          made with it.
        </p>
        {keys.length === 0 ? (
          <EmptyState>No keys yet.</EmptyState>
        ) : (
          <DataTable label="Automation-tool keys" columns={keyColumns} rows={keys} rowKey={(key) => key.id} />
        )}
        {owner && <PasskeyInsteadOfCode identity={identity} csrf={frame.csrf} back={path} />}
        {owner ? (
          <form method="post" action={`${path}/keys`} class="automation-key-form">
            <h3>Make a key</h3>
            <FormError errors={errors} />
            <CsrfInput token={frame.csrf} />
            <Field
              label="Name"
              name="name"
              value={typed}
              errors={errors}
              maxLength={64}
              hint="Where it is used: “Zapier”, “n8n on the office server”."
              required
            />
            <IdentityFields
              identity={identity}
              errors={errors}
              back={path}
              hint="A key outlives your session: your password again, so that a borrowed session cannot make one."
            />
            <button type="submit">Make key</button>
            <p class="hint">A workspace holds at most {KEYS_PER_WORKSPACE} active keys.</p>
          </form>
        ) : (
          <p class="muted">Only the workspace’s owners make and revoke keys.</p>
        )}
      </Panel>
      <Panel title="Subscriptions" id="subscriptions">
        {hooks.length === 0 ? (
          <EmptyState>No platform has subscribed yet. Turn on a trigger in one (see below) and it appears here.</EmptyState>
        ) : (
          <DataTable label="Subscriptions" columns={hookColumns} rows={hooks} rowKey={(hook) => hook.id} />
        )}
      </Panel>
      <Panel title="Connect a platform" id="connect">
        <p>
          The API is at <code>{baseUrl}</code>. A platform subscribes with <code>POST /hooks</code> and stops with <code>DELETE /hooks/&#123;id&#125;</code>,
          and its editor reads an example from <code>GET /hooks/samples/submission.created</code>. To poll instead, it lists{' '}
          <code>GET /forms/&#123;formId&#125;/submissions</code> (newest first) and keeps the <code>id</code>s it has seen.
        </p>
        <pre class="example">
          <code>{`curl -X POST ${baseUrl}/hooks \\
  -H "Authorization: Bearer $AUTOMATION_KEY" -H "Content-Type: application/json" \\
  -d '{"targetUrl": "https://hooks.zapier.com/…", "event": "submission.created"}'`}</code>
        </pre>
        <p class="muted">Step-by-step set-ups for each platform are in the integrations guide (docs/integrations.md).</p>
      </Panel>
    </Layout>
  );
}

function LastDelivery({ hook }: { hook: ListedHook }) {
  if (hook.lastTriedAt === null) return <span class="muted">None yet</span>;
  return (
    <span>
      {hook.lastStatus === 'ok' ? <Badge tone="success">Delivered</Badge> : <Badge tone="danger">Failed</Badge>} <Time ms={Number(hook.lastTriedAt)} />
      {hook.lastStatus === 'failed' && hook.lastError && <span class="automation-error">{hook.lastError}</span>}
    </span>
  );
}

/** The new key, shown once. */
export function AutomationKeyCreatedPage({
  frame,
  workspaceId,
  name,
  secret,
  baseUrl,
}: {
  frame: Frame;
  workspaceId: string;
  name: string;
  secret: string;
  baseUrl: string;
}) {
  return (
    <Layout title={`Your new key “${name}”`} frame={frame} scripts={['copy.js']}>
      <Panel title="Copy your key" id="copy">
        <ShownOnce secret={secret} />
        <p>
          Paste it where the platform asks for an API key, with <code>{baseUrl}</code> as the address. It works in this workspace only.
        </p>
      </Panel>
      <p>
        <a href={`/w/${workspaceId}/automations`}>← Back to automations</a>
      </p>
    </Layout>
  );
}
