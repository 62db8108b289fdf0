import type { TokenStatus } from '../../services/tokens.js';
import type { FieldErrors } from '../field-errors.js';
import { EmptyState, Panel, Time } from './components.js';
import { type Frame, Layout } from './layout.js';
import { ApiNotes, CreateTokenForm, type TokenFormValues } from './token-form.js';

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
}

const STATUS_TEXT: Record<TokenStatus, string> = { active: 'Active', revoked: 'Revoked', expired: 'Expired' };

/** The account's API tokens: what each may do and when it was last used, a way to revoke it, and a form for a new one. */
export function TokensPage({ frame, tokens, form, errors, baseUrl, apiOpen }: TokensPageProps) {
  return (
    <Layout title="API tokens" frame={frame}>
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
        <CreateTokenForm csrf={frame.csrf} values={form} errors={errors} />
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

function TokenTable({ tokens }: { tokens: TokenItem[] }) {
  return (
    <div class="table-wrap">
      <table class="stack tokens">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Scopes</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">Expires</th>
            <th scope="col">Status</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {tokens.map((token) => (
            <tr key={token.id}>
              <td data-label="Name">
                <strong>{token.name}</strong>
              </td>
              <td data-label="Scopes">
                <ScopeList scopes={token.scopes} />
              </td>
              <td data-label="Created">
                <Time ms={token.createdAt} />
              </td>
              <td data-label="Last used">
                <Time ms={token.lastUsedAt} />
              </td>
              <td data-label="Expires">
                <Time ms={token.expiresAt} empty="Never" />
              </td>
              <td data-label="Status">
                <span class={token.status === 'active' ? 'badge' : 'badge neutral'}>{STATUS_TEXT[token.status]}</span>
              </td>
              <td data-label="">
                {token.status !== 'revoked' && (
                  // a GET to the confirmation page: works without script, changes nothing by itself
                  <form method="get" action={`/account/tokens/${encodeURIComponent(token.id)}/revoke`}>
                    <button type="submit" class="secondary">
                      Revoke<span class="visually-hidden"> token “{token.name}”</span>
                    </button>
                  </form>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
