import type { ComponentChildren } from 'preact';
import type { FieldErrors } from '../field-errors.js';
import { PASSKEY_NAME_MAX } from '../../services/passkeys.js';
import { Button, type ButtonVariant, CsrfInput, Field } from './components.js';

/** The scripts of every page with a passkey form: the browser library, then ours (assets/passkeys.js). */
export const PASSKEY_SCRIPTS = ['webauthn.js', 'passkeys.js'];

interface CeremonyFormProps {
  kind: 'register' | 'authenticate';
  action: string;
  /** Where the script fetches the ceremony's options (JSON). */
  options: string;
  csrf: string;
  button: string;
  variant?: ButtonVariant;
  /** What the page says instead of the form when script is off. */
  needsScript: string;
  children?: ComponentChildren;
}

/**
 * A form whose button runs a passkey ceremony (assets/passkeys.js): it fetches the options, asks the
 * browser for a passkey, puts the answer in `response` and posts the form. Hidden until the script
 * shows it (browsers without script or without passkeys see the note instead); the status line
 * says what it waits for and what went wrong.
 */
function CeremonyForm({ kind, action, options, csrf, button, variant, needsScript, children }: CeremonyFormProps) {
  return (
    <>
      <p class="muted passkey-note" data-passkey-note data-unsupported="This browser cannot use passkeys.">
        {needsScript}
      </p>
      <form method="post" action={action} class="passkey-form" data-passkey={kind} data-options={options} hidden>
        <CsrfInput token={csrf} />
        <input type="hidden" name="response" value="" />
        {children}
        <Button type="submit" variant={variant}>
          {button}
        </Button>
        <p class="muted passkey-status" data-passkey-status role="status" />
      </form>
    </>
  );
}

/** The login page's "Sign in with a passkey": no address typed, the browser offers the passkeys it holds for this site. */
export function PasskeySignInForm({ csrf, next }: { csrf: string; next: string }) {
  return (
    <CeremonyForm
      kind="authenticate"
      action="/login/passkey"
      options="/login/passkey/options"
      csrf={csrf}
      button="Sign in with a passkey"
      variant="secondary"
      needsScript="Signing in with a passkey needs JavaScript, which is off in this browser."
    >
      <input type="hidden" name="next" value={next} />
    </CeremonyForm>
  );
}

/** The second step of a sign-in with a passkey of the account, instead of an app's code. */
export function PasskeySecondFactorForm({ csrf }: { csrf: string }) {
  return (
    <CeremonyForm
      kind="authenticate"
      action="/login/two-factor/passkey"
      options="/login/two-factor/passkey/options"
      csrf={csrf}
      button="Use a passkey"
      variant="secondary"
      needsScript="Using a passkey needs JavaScript, which is off in this browser."
    >
      <label class="check">
        <input type="checkbox" name="remember" value="1" /> Remember this browser for 30 days
      </label>
    </CeremonyForm>
  );
}

/** "Confirm with a passkey": the session proves the second factor anew, then goes to `next` (adding a passkey, making a token). */
export function PasskeyConfirmForm({ csrf, next }: { csrf: string; next: string }) {
  return (
    <CeremonyForm
      kind="authenticate"
      action="/account/passkeys/confirm"
      options="/account/passkeys/confirm/options"
      csrf={csrf}
      button="Confirm with a passkey"
      variant="secondary"
      needsScript="Confirming with a passkey needs JavaScript, which is off in this browser."
    >
      <input type="hidden" name="next" value={next} />
    </CeremonyForm>
  );
}

/** A new passkey: its name, then the browser's prompt. */
export function AddPasskeyForm({ csrf, errors }: { csrf: string; errors?: FieldErrors }) {
  return (
    <CeremonyForm
      kind="register"
      action="/account/passkeys"
      options="/account/passkeys/registration-options"
      csrf={csrf}
      button="Add a passkey"
      needsScript="Adding a passkey needs JavaScript, which is off in this browser: turn it on for this site to add one. Renaming and removing passkeys work without it."
    >
      <Field
        label="Name"
        name="name"
        maxLength={PASSKEY_NAME_MAX}
        hint="Optional: what holds it, so you can tell your passkeys apart (“Work laptop”, “Phone”, “1Password”)."
        errors={errors}
      />
    </CeremonyForm>
  );
}
