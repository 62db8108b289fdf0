import { ConfirmForm, Panel, SecretValue, Time } from './components.js';
import { type Frame, Layout } from './layout.js';
import { ApiNotes } from './token-form.js';
import { ScopeList, type TokenItem } from './tokens-page.js';

interface TokenCreatedProps {
  frame: Frame;
  token: TokenItem;
  secret: string;
  baseUrl: string;
  apiOpen: boolean;
}

/** A secret shown the one time it exists (a token, an automation-tool key): the warning, the secret, and Copy (with copy.js). */
export function ShownOnce({ secret }: { secret: string }) {
  return (
    <>
      <p class="notice">
        <strong>Copy it now: it will not be shown again.</strong> Only a fingerprint of it is kept, so nobody can show it to you later.
      </p>
      <SecretValue id="new-token" secret={secret} />
    </>
  );
}

/** The one time the new token's secret is shown: with a copy button, the warning, and how to call the API with it. */
export function TokenCreatedPage({ frame, token, secret, baseUrl, apiOpen }: TokenCreatedProps) {
  return (
    <Layout title={`Your new token “${token.name}”`} frame={frame} scripts={['copy.js']}>
      <Panel title="Copy your token" id="copy">
        <ShownOnce secret={secret} />
        <dl class="token-facts">
          <div>
            <dt>Scopes</dt>
            <dd>
              <ScopeList scopes={token.scopes} />
            </dd>
          </div>
          <div>
            <dt>Expires</dt>
            <dd>
              <Time ms={token.expiresAt} empty="Never" />
            </dd>
          </div>
        </dl>
      </Panel>
      <Panel title="Call the API with it">
        <p>
          The API is at <code>{baseUrl}</code>. Send the token in the <code>Authorization</code> header:
        </p>
        <pre class="example">
          <code>{`curl -H "Authorization: Bearer $FORMGATE_TOKEN" ${baseUrl}/me`}</code>
        </pre>
        {apiOpen ? (
          // team mode speaks no plans (issue 41, item 16): every workspace has the API
          !frame.plans.team && (
            <p>
              The API works on upgraded workspaces only: a request about a free workspace’s forms or submissions is answered <code>upgrade_required</code>.
            </p>
          )
        ) : (
          <ApiNotes apiOpen={apiOpen} />
        )}
      </Panel>
      <p>
        <a href="/account/tokens">Back to API tokens</a>
      </p>
    </Layout>
  );
}

/** Asks before revoking: a program using the token stops working at once, and nothing brings it back. */
export function RevokeTokenPage({ frame, token }: { frame: Frame; token: TokenItem }) {
  const expired = token.status === 'expired';
  return (
    <Layout title={`Revoke token “${token.name}”?`} frame={frame}>
      <div class="panel">
        <p>
          {expired
            ? 'It has already expired, so nothing uses it any more; revoking it frees its name for a new token.'
            : 'Programs using it stop working at once. A revoked token cannot be used again; a program that still needs the API needs a new token.'}
        </p>
        <p class="muted">
          Last used: <Time ms={token.lastUsedAt} />
        </p>
        <ConfirmForm csrf={frame.csrf} action={`/account/tokens/${encodeURIComponent(token.id)}/revoke`} button="Revoke token" cancel="/account/tokens" />
      </div>
    </Layout>
  );
}
