import type { FieldErrors } from '../field-errors.js';
import type { AppSetup, SecondFactors } from '../../services/two-factor.js';
import { Button, ButtonLink, CodeBlock, CsrfInput, Field, FormError, Panel } from './components.js';
import { type Frame, Layout, PublicLayout } from './layout.js';
import { SecondFactorCodeField } from './token-form.js';
import { PASSKEY_SCRIPTS, PasskeySecondFactorForm } from './passkey-forms.js';

interface SignInStepProps {
  csrf: string;
  /** The account has an app (or recovery codes): the code field is shown. */
  codes: boolean;
  /** How many passkeys the account has (the passkey button is theirs). */
  passkeys: number;
  errors?: FieldErrors;
}

/** The second step of signing in: the app's code (or a recovery code), or a passkey; "remember this browser" for 30 days. */
export function TwoFactorSignInPage({ csrf, codes, passkeys, errors }: SignInStepProps) {
  return (
    <PublicLayout
      title="Two-factor sign-in"
      lead="Your password was right. Now prove it is you with your second factor."
      scripts={passkeys > 0 ? PASSKEY_SCRIPTS : undefined}
    >
      <FormError errors={errors} />
      {codes && (
        <form method="post" action="/login/two-factor" noValidate>
          <CsrfInput token={csrf} />
          <SecondFactorCodeField errors={errors} />
          <label class="check">
            <input type="checkbox" name="remember" value="1" /> Remember this browser for 30 days
          </label>
          <button type="submit">Sign in</button>
        </form>
      )}
      {passkeys > 0 && !codes && <p>Use one of your passkeys to finish signing in.</p>}
      {passkeys > 0 && <PasskeySecondFactorForm csrf={csrf} />}
      <form method="post" action="/login/two-factor/cancel">
        <CsrfInput token={csrf} />
        <Button type="submit" variant="secondary">
          Cancel and sign in again
        </Button>
      </form>
    </PublicLayout>
  );
}

interface SettingsProps {
  frame: Frame;
  factors: SecondFactors;
  rememberedBrowsers: number;
  /** Why a second factor is required of this account (the admin, a workspace), or null when it is not. */
  requiredBy: string | null;
  errors?: FieldErrors;
  /** Which form the errors belong to. */
  errorsOf?: 'codes' | 'off';
}

/** The account's second factors: the app (on or off, its recovery codes), passkeys, remembered browsers. */
export function TwoFactorSettingsPage({ frame, factors, rememberedBrowsers, requiredBy, errors, errorsOf }: SettingsProps) {
  const none = !factors.app && factors.passkeys === 0;
  return (
    <Layout title="Two-factor sign-in" frame={frame}>
      <p class="lead">A second factor keeps your account yours even if someone learns your password: after the password, Formgate asks for it.</p>
      {requiredBy && (
        <p class={none ? 'notice warning' : 'notice'} role={none ? 'alert' : undefined}>
          {none ? `${requiredBy} requires a second factor: set one up to go on using the dashboard.` : `${requiredBy} requires a second factor.`}
        </p>
      )}
      <Panel title="Authenticator app">
        {factors.app ? (
          <>
            <p>
              On. After your password, Formgate asks for the code your app shows. You have <strong>{factors.recoveryCodesLeft}</strong> unused recovery code
              {factors.recoveryCodesLeft === 1 ? '' : 's'} left.
            </p>
            <h3 id="new-codes-heading">New recovery codes</h3>
            <form method="post" action="/account/two-factor/recovery-codes" noValidate aria-labelledby="new-codes-heading">
              {errorsOf === 'codes' && <FormError errors={errors} />}
              <CsrfInput token={frame.csrf} />
              <SecondFactorCodeField
                errors={errorsOf === 'codes' ? errors : undefined}
                hint="Your old recovery codes stop working. The 6 digits your app shows now."
              />
              <Button type="submit" variant="secondary">
                Make new recovery codes
              </Button>
            </form>
            <h3 id="app-off-heading">Turn the app off</h3>
            <form method="post" action="/account/two-factor/off" noValidate aria-labelledby="app-off-heading">
              {errorsOf === 'off' && <FormError errors={errors} />}
              <CsrfInput token={frame.csrf} />
              <SecondFactorCodeField errors={errorsOf === 'off' ? errors : undefined} />
              <Button type="submit" variant="danger">
                Turn off the authenticator app
              </Button>
            </form>
          </>
        ) : (
          <>
            <p>Off. Any authenticator app works: 1Password, Bitwarden, Google Authenticator, Microsoft Authenticator, Aegis, FreeOTP.</p>
            <ButtonLink href="/account/two-factor/app">Set up an authenticator app</ButtonLink>
          </>
        )}
      </Panel>
      <Panel title="Passkeys">
        <p>
          {factors.passkeys === 0
            ? 'No passkeys. A passkey signs you in with your fingerprint, face or device PIN, with no password to type.'
            : `You have ${factors.passkeys} passkey${factors.passkeys === 1 ? '' : 's'}. Each one signs you in alone, or finishes a sign-in after your password.`}
        </p>
        <ButtonLink href="/account/passkeys" variant="secondary">
          Manage passkeys
        </ButtonLink>
      </Panel>
      <Panel title="Remembered browsers">
        <p>
          {rememberedBrowsers === 0
            ? 'No browser skips the second factor.'
            : `${rememberedBrowsers} browser${rememberedBrowsers === 1 ? '' : 's'} you asked to remember skip${rememberedBrowsers === 1 ? 's' : ''} the second factor until 30 days after you ticked the box; your password is still asked.`}
        </p>
        {rememberedBrowsers > 0 && (
          <form method="post" action="/account/two-factor/forget-browsers">
            <CsrfInput token={frame.csrf} />
            <Button type="submit" variant="secondary">
              Forget every remembered browser
            </Button>
          </form>
        )}
      </Panel>
    </Layout>
  );
}

/** Setting up an app: a QR code, the same secret as text, and a code typed back. */
export function AppSetupPage({ frame, setup, errors }: { frame: Frame; setup: AppSetup; errors?: FieldErrors }) {
  return (
    <Layout title="Set up an authenticator app" frame={frame}>
      <Panel title="1. Add Formgate to your app">
        <p>Scan this code with your authenticator app.</p>
        {/* the QR code is an SVG this server drew from the secret (qrcode): no script, no request */}
        <div class="qr-code" role="img" aria-label="QR code holding your new secret" dangerouslySetInnerHTML={{ __html: setup.qrSvg }} />
        <p>Or type this secret into the app by hand (time-based, 6 digits, every 30 seconds):</p>
        <CodeBlock id="totp-secret" label="Your new secret" code={setup.secretText} copy="Copy secret" wrap />
      </Panel>
      <Panel title="2. Type the code it shows">
        <form method="post" action="/account/two-factor/app" noValidate>
          <FormError errors={errors} />
          <CsrfInput token={frame.csrf} />
          <input type="hidden" name="setup" value={setup.sealedSecret} />
          <Field
            label="Code from your authenticator app"
            name="code"
            autocomplete="one-time-code"
            inputMode="numeric"
            maxLength={8}
            hint="The 6 digits your app shows for Formgate now."
            required
            errors={errors}
          />
          <button type="submit">Turn on</button>
        </form>
      </Panel>
    </Layout>
  );
}

/** Recovery codes, shown this once. */
export function RecoveryCodesPage({ frame, codes, fresh }: { frame: Frame; codes: string[]; fresh: boolean }) {
  return (
    <Layout title="Your recovery codes" frame={frame}>
      <p class="lead">
        {fresh ? 'Two-factor sign-in is on. ' : ''}Keep these codes somewhere safe, apart from your phone: a password manager or a printed page. Each one signs
        you in once if you lose your app. They are shown this once.
      </p>
      <Panel title="Recovery codes">
        <CodeBlock id="recovery-codes" label="Your recovery codes" code={codes.join('\n')} copy="Copy codes" />
      </Panel>
      <p>
        <ButtonLink href="/account/two-factor">I have saved them</ButtonLink>
      </p>
    </Layout>
  );
}

/** The admin's and a workspace owner's "Require a second factor of every …" setting: a box and Save. */
export function RequireSecondFactorForm({ action, csrf, required, label }: { action: string; csrf: string; required: boolean; label: string }) {
  return (
    <form method="post" action={action}>
      <CsrfInput token={csrf} />
      <label class="check">
        <input type="checkbox" name="required" value="1" checked={required} /> {label}
      </label>
      <Button type="submit" variant="secondary">
        Save
      </Button>
    </form>
  );
}
