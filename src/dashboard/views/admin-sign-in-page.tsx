import type { OidcSettingsInput, OidcSettingsView } from '../../services/oidc-settings.js';
import type { FieldErrors } from '../field-errors.js';
import { Button, CodeBlock, CsrfInput, Field, FormError, Panel, TextArea } from './components.js';
import { type Frame, Layout } from './layout.js';

interface AdminSignInPageProps {
  frame: Frame;
  settings: OidcSettingsView;
  errors?: FieldErrors;
  /** What was typed in a refused form, shown again (never the secret). */
  typed?: Omit<OidcSettingsInput, 'clientSecret'>;
}

const ENV: Record<string, string> = {
  issuer: 'FORMGATE_OIDC_ISSUER',
  clientId: 'FORMGATE_OIDC_CLIENT_ID',
  clientSecret: 'FORMGATE_OIDC_CLIENT_SECRET',
  name: 'FORMGATE_OIDC_NAME',
  signup: 'FORMGATE_OIDC_SIGNUP',
  only: 'FORMGATE_OIDC_ONLY',
  rules: 'FORMGATE_OIDC_MEMBERSHIP',
};

/** A setting the environment decides: its value (never a secret's) and the variable, instead of the field. */
function FromEnvironment({ label, field, value }: { label: string; field: string; value: string }) {
  return (
    <div class="field">
      <p class="env-setting">
        <strong>{label}:</strong> {value} <span class="muted">(set by {ENV[field]})</span>
      </p>
    </div>
  );
}

/** A box to tick, with its hint: the form's on/off settings. */
function CheckField({ name, label, hint, checked }: { name: string; label: string; hint: string; checked: boolean }) {
  const id = `field-${name}`;
  return (
    <div class="field check">
      <input id={id} type="checkbox" name={name} value="on" checked={checked} aria-describedby={`${id}-hint`} />
      <label for={id}>{label}</label>
      <p class="hint" id={`${id}-hint`}>
        {hint}
      </p>
    </div>
  );
}

const SIGNUP_HINT =
  'Someone the provider signs in with a verified address that no account has gets one. With membership rules, only people a rule matches, who join its workspaces; without rules, everyone, each with a workspace of their own.';
const ONLY_HINT =
  'Passwords stop working for everyone but the instance admins, who keep theirs to sign in if the provider is down (“Admin sign-in” on the login page). Password resets and sign-ups are refused to everyone else.';
const RULES_HINT =
  'One rule per line: claim=value -> workspace id, or @domain -> workspace id, with “as owner” at the end to make owners (members otherwise). Applied at each sign-in: they add people and raise members to owners, never remove anyone. A domain rule reads a verified address only. A workspace’s id is in its address, /w/<id>. At most 20.';

/** The instance admin's single sign-on: the OpenID provider, who gets an account, single sign-on only, and the membership rules. */
export function AdminSignInPage({ frame, settings, errors, typed }: AdminSignInPageProps) {
  const env = settings.fromEnvironment;
  const value = { ...settings, ...typed };
  const check = (field: 'signup' | 'only') => (value[field] ? 'on' : 'off');
  return (
    <Layout title="Single sign-on" frame={frame} scripts={['copy.js']}>
      <p class="breadcrumb">
        <a href="/admin">← Instance admin</a>
      </p>
      <Panel title="Redirect URI" id="redirect-uri">
        <p>Register this address at the provider as the client’s redirect (callback) URI, for the authorization code flow:</p>
        <CodeBlock id="oidc-redirect-uri" label="Redirect URI" code={settings.redirectUri} copy="Copy" wrap />
        <p class="muted">
          {settings.configured
            ? `The login page offers “Sign in with ${settings.name}”.`
            : 'Single sign-on is off until the issuer URL, the client id and the client secret are all set.'}
        </p>
      </Panel>
      <Panel title="OpenID provider" id="provider">
        <FormError errors={errors} />
        <form method="post" action="/admin/sign-in" noValidate>
          <CsrfInput token={frame.csrf} />
          {env.issuer ? (
            <FromEnvironment label="Issuer URL" field="issuer" value={settings.issuer} />
          ) : (
            <Field
              label="Issuer URL"
              name="issuer"
              type="url"
              value={value.issuer}
              hint="The provider’s issuer, such as https://sso.example.com/realms/main; empty: off."
              errors={errors}
            />
          )}
          {env.clientId ? (
            <FromEnvironment label="Client id" field="clientId" value={settings.clientId} />
          ) : (
            <Field label="Client id" name="clientId" value={value.clientId} errors={errors} />
          )}
          {env.clientSecret ? (
            <FromEnvironment label="Client secret" field="clientSecret" value="set" />
          ) : (
            <Field
              label="Client secret"
              name="clientSecret"
              type="password"
              autocomplete="off"
              hint={settings.clientSecretSet ? 'A secret is stored and never shown; leave empty to keep it.' : 'None stored yet.'}
              errors={errors}
            />
          )}
          {env.name ? (
            <FromEnvironment label="Name on the button" field="name" value={settings.name} />
          ) : (
            <Field
              label="Name on the button"
              name="name"
              value={value.name}
              hint="The login page says “Sign in with” this name: Keycloak, Google, Microsoft…"
              errors={errors}
            />
          )}
          {env.signup ? (
            <FromEnvironment label="Accounts made at a first sign-in" field="signup" value={check('signup')} />
          ) : (
            <CheckField name="signup" label="Make an account at a first sign-in" hint={SIGNUP_HINT} checked={value.signup} />
          )}
          {env.only ? (
            <FromEnvironment label="Single sign-on only" field="only" value={check('only')} />
          ) : (
            <CheckField name="only" label="Single sign-on only" hint={ONLY_HINT} checked={value.only} />
          )}
          {env.rules ? (
            <FromEnvironment label="Membership rules" field="rules" value={settings.rules || 'none'} />
          ) : (
            <TextArea label="Membership rules" name="rules" value={value.rules} hint={RULES_HINT} errors={errors} />
          )}
          <Button type="submit">Save</Button>
        </form>
      </Panel>
      <Panel title="Check the provider" id="check">
        <p>Reads the provider’s discovery document with these settings, as a sign-in would, and says what it found.</p>
        <form method="post" action="/admin/sign-in/check">
          <CsrfInput token={frame.csrf} />
          <Button type="submit" variant="secondary">
            Check the provider
          </Button>
        </form>
      </Panel>
    </Layout>
  );
}
