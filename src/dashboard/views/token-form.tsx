import { SCOPES } from '../../domain/scopes.js';
import type { FieldErrors } from '../field-errors.js';
import { CsrfInput, Field, FormError } from './components.js';

/** What the Create token form holds: empty at first, what was sent when it comes back with messages. */
export interface TokenFormValues {
  name: string;
  scopes: string[];
  /** `YYYY-MM-DD`, or empty for a token that never expires. */
  expiresOn: string;
}

export const EMPTY_TOKEN_FORM: TokenFormValues = { name: '', scopes: [], expiresOn: '' };

/** The Create token form: a name, one checkbox per scope (labelled with the scope's name) and an optional last day. */
export function CreateTokenForm({ csrf, values, errors }: { csrf: string; values: TokenFormValues; errors?: FieldErrors }) {
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
      <CurrentPasswordField errors={errors} hint="A token can do what you can: your password again, so that a borrowed session cannot make one." />
      <button type="submit">Create token</button>
    </form>
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
