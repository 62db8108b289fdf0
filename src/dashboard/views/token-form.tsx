import { SCOPES } from '../../domain/scopes.js';
import type { FieldErrors } from '../field-errors.js';
import type { IdentityCheck } from '../identity-check.js';
import { CsrfInput, Field, FormError } from './components.js';
import { PasskeyConfirmForm } from './passkey-forms.js';

/** What the Create token form holds: empty at first, what was sent when it comes back with messages. */
export interface TokenFormValues {
  name: string;
  scopes: string[];
  /** `YYYY-MM-DD`, or empty for a token that never expires. */
  expiresOn: string;
}

export const EMPTY_TOKEN_FORM: TokenFormValues = { name: '', scopes: [], expiresOn: '' };

/** The Create token form: a name, one checkbox per scope (labelled with the scope's name) and an optional last day. */
export function CreateTokenForm({ csrf, values, errors, identity }: { csrf: string; values: TokenFormValues; errors?: FieldErrors; identity: IdentityCheck }) {
  const scopeError = errors?.scopes;
  return (
    // the fragment brings the answer's form, with its messages, into view
    <form method="post" action="/account/tokens#create-token-heading" noValidate>
      <FormError errors={errors} />
      <CsrfInput token={csrf} />
      <Field
        label="Name"
        name="name"
        value={values.name}
        hint="What uses it, so you know which one to revoke: “ci”, “deploy script”."
        maxLength={128}
        required
        errors={errors}
      />
      <fieldset aria-describedby={scopeError ? 'scopes-hint scopes-error' : 'scopes-hint'}>
        <legend>Scopes</legend>
        <p class="hint" id="scopes-hint">
          What the token may do. <code>read</code> scopes list and read; <code>write</code> scopes create, change and delete.
        </p>
        <div class="checks">
          {SCOPES.map((scope) => (
            <label key={scope}>
              <input type="checkbox" name="scopes" value={scope} checked={values.scopes.includes(scope)} />
              <code>{scope}</code>
            </label>
          ))}
        </div>
        {scopeError && (
          <p class="error" id="scopes-error">
            {scopeError}
          </p>
        )}
      </fieldset>
      <Field
        label="Expires on (optional)"
        name="expiresAt"
        type="date"
        value={values.expiresOn}
        hint="The token stops working at the end of that day (UTC). Leave it empty for a token that works until you revoke it."
        errors={errors}
      />
      {/* never filled back in: a refused form asks for it again */}
      <IdentityFields
        identity={identity}
        errors={errors}
        back="/account/tokens"
        hint="A token can do what you can: your password again, so that a borrowed session cannot make one."
      />
      <button type="submit">Create token</button>
    </form>
  );
}

/**
 * What a form that makes a token or a key asks of the person: the password (or, without one, a
 * fresh sign-in at the provider: a link there and back to `back`), and the second factor's code
 * when it is asked.
 */
export function IdentityFields({ identity, errors, back, hint }: { identity: IdentityCheck; errors?: FieldErrors; back: string; hint: string }) {
  return (
    <>
      {identity.by === 'password' ? (
        <CurrentPasswordField errors={errors} hint={hint} />
      ) : (
        <div class="field" id="field-currentPassword">
          {identity.providerConfirmed ? (
            <p>You confirmed it is you with your sign-in provider a moment ago.</p>
          ) : (
            <p>
              Your account signs in through your organisation’s provider:{' '}
              <a href={`/login/oidc/confirm?next=${encodeURIComponent(back)}`}>confirm it is you there</a>, then come back to this form.
            </p>
          )}
          {errors?.currentPassword && (
            <p class="error" id="field-currentPassword-error">
              {errors.currentPassword}
            </p>
          )}
        </div>
      )}
      {identity.askCode && identity.codes && <SecondFactorCodeField errors={errors} />}
      {identity.askCode && !identity.codes && errors?.code && (
        <p class="error" role="alert">
          {errors.code}
        </p>
      )}
    </>
  );
}

/** With a passkey, it stands in for the code: confirmed, the session has proved its second factor for 15 minutes. Outside the form it serves (forms do not nest). */
export function PasskeyInsteadOfCode({ identity, csrf, back }: { identity: IdentityCheck; csrf: string; back: string }) {
  if (!identity.askCode || identity.passkeys === 0) return null;
  return (
    <div class="passkey-instead">
      <p>
        {identity.codes
          ? 'Have a passkey at hand? Confirm with it first, and the form below will not ask for a code.'
          : 'Confirm it is you with your passkey first: this form asks for your second factor.'}
      </p>
      <PasskeyConfirmForm csrf={csrf} next={back} />
    </div>
  );
}

/** The second factor asked again before a token or a key is made, when the session has not proved it in the last 15 minutes. */
export function SecondFactorCodeField({ errors, hint }: { errors?: FieldErrors; hint?: string }) {
  return (
    <Field
      label="Code from your authenticator app"
      name="code"
      autocomplete="one-time-code"
      maxLength={32}
      hint={hint ?? 'The 6 digits your app shows now, or one of your recovery codes.'}
      required
      errors={errors}
    />
  );
}

/** The password asked again before a secret that outlives the session is made (a token, an automation-tool key); never filled back in. */
export function CurrentPasswordField({ errors, hint }: { errors?: FieldErrors; hint: string }) {
  return <Field label="Current password" name="currentPassword" type="password" autocomplete="current-password" hint={hint} required errors={errors} />;
}

/** Where the API is and what it needs: said beside the form and again with the new token. */
export function ApiNotes({ apiOpen }: { apiOpen: boolean }) {
  if (apiOpen) return null;
  return (
    <div class="notice">
      <p>
        None of your workspaces is upgraded. The API works on upgraded workspaces only: on the free plan it refuses nearly every request with{' '}
        <code>upgrade_required</code>, and a token can only read who it is (<code>GET /me</code>) and list your workspaces.
      </p>
    </div>
  );
}
