import type { TokenStatus } from '../../services/tokens.js';
import type { IdentityCheck } from '../identity-check.js';
import type { FieldErrors } from '../field-errors.js';
import { Badge, Button, EmptyState, Panel, Time } from './components.js';
import { type Column, DataTable } from './data-table.js';
import { type Frame, Layout } from './layout.js';
import { ApiNotes, CreateTokenForm, PasskeyInsteadOfCode, type TokenFormValues } from './token-form.js';
import { PASSKEY_SCRIPTS } from './passkey-forms.js';

/** A token as its row in the table shows it. */
export interface TokenItem {
  id: string;
  name: string;
  scopes: string[];
  createdAt: number;
  lastUsedAt: number | null;
  expiresAt: number | null;
  status: TokenStatus;
}

interface TokensPageProps {
  frame: Frame;
  tokens: TokenItem[];
  form: TokenFormValues;
  errors?: FieldErrors;
  baseUrl: string;
  /** Whether one of the account's workspaces is upgraded (the API needs one). */
  apiOpen: boolean;
  /** How the form asks the person to prove it is them (password or provider, and the second factor). */
  identity: IdentityCheck;
}

const STATUS_TEXT: Record<TokenStatus, string> = { active: 'Active', revoked: 'Revoked', expired: 'Expired' };

/** The account's API tokens: what each may do and when it was last used, a way to revoke it, and a form for a new one. */
export function TokensPage({ frame, tokens, form, errors, baseUrl, apiOpen, identity }: TokensPageProps) {
  return (
    <Layout title="API tokens" frame={frame} scripts={identity.askCode && identity.passkeys > 0 ? PASSKEY_SCRIPTS : undefined}>
      <p class="lead">
        Programs call the management API at <code>{baseUrl}</code> with a token of your account, limited to the scopes you give it.
      </p>
      <ApiNotes apiOpen={apiOpen} />
      <Panel title="Your tokens">
        {tokens.length === 0 ? (
          <EmptyState>
            <p>
              No tokens yet. A token lets a program (a deploy script, a CI job, an integration) read and change your forms and submissions through the API.
              Create one below and give it only the scopes it needs.
            </p>
          </EmptyState>
        ) : (
          <TokenTable tokens={tokens} />
        )}
      </Panel>
      <Panel title="Create token">
        <PasskeyInsteadOfCode identity={identity} csrf={frame.csrf} back="/account/tokens" />
        <CreateTokenForm csrf={frame.csrf} values={form} errors={errors} identity={identity} />
      </Panel>
    </Layout>
  );
}

/** A token's scopes by their names (`forms:read`), one per line. */
export function ScopeList({ scopes }: { scopes: string[] }) {
  return (
    <ul class="scope-list">
      {scopes.map((scope) => (
        <li key={scope}>
          <code>{scope}</code>
        </li>
      ))}
    </ul>
  );
}

const TOKEN_COLUMNS: Column<TokenItem>[] = [
  { label: 'Name', cell: (token) => <strong>{token.name}</strong> },
  { label: 'Scopes', cell: (token) => <ScopeList scopes={token.scopes} /> },
  { label: 'Created', cell: (token) => <Time ms={token.createdAt} /> },
  { label: 'Last used', cell: (token) => <Time ms={token.lastUsedAt} /> },
  { label: 'Expires', cell: (token) => <Time ms={token.expiresAt} empty="Never" /> },
  { label: 'Status', cell: (token) => <Badge tone={token.status === 'active' ? 'accent' : 'neutral'}>{STATUS_TEXT[token.status]}</Badge> },
  {
    label: 'Actions',
    hideLabel: true,
    cell: (token) =>
      token.status !== 'revoked' && (
        // a GET to the confirmation page: works without script, changes nothing by itself
        <form method="get" action={`/account/tokens/${encodeURIComponent(token.id)}/revoke`}>
          <Button type="submit" variant="secondary">
            Revoke<span class="visually-hidden"> token “{token.name}”</span>
          </Button>
        </form>
      ),
  },
];

function TokenTable({ tokens }: { tokens: TokenItem[] }) {
  return <DataTable label="Your tokens" class="tokens" columns={TOKEN_COLUMNS} rows={tokens} rowKey={(token) => token.id} />;
}
