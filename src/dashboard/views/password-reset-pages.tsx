import { successFlash } from '../flash.js';
import type { FieldErrors } from '../field-errors.js';
import { CsrfInput, Field, FormError } from './components.js';
import { PublicLayout } from './layout.js';
import { RevokeTokensCheck } from './revoke-tokens-check.js';

interface ForgotProps {
  csrf: string;
  email?: string;
  errors?: FieldErrors;
}

/** Asks for the address to send a reset link to. */
export function ForgotPasswordPage({ csrf, email, errors, passwordsOff }: ForgotProps & { passwordsOff?: string | null }) {
  return (
    <PublicLayout title="Reset your password" lead="Enter your account’s email address and we will send you a link to choose a new password.">
      {passwordsOff && <p class="notice">{passwordsOff}</p>}
      <FormError errors={errors} />
      <form method="post" action="/forgot-password" noValidate>
        <CsrfInput token={csrf} />
        <Field label="Email" name="email" type="email" value={email} autocomplete="username" required errors={errors} />
        <button type="submit">Send reset link</button>
      </form>
      <p class="links">
        <a href="/login">Back to log in</a>
      </p>
    </PublicLayout>
  );
}

/** The one answer to every request for a link: whether or not an account has the address. */
export function ResetLinkSentPage() {
  return (
    <PublicLayout title="Check your email" flash={successFlash('If an account has this address, we sent a link to it.')}>
      <p>The link works once, within an hour. Nothing came after a few minutes? Look in your spam folder, or ask again.</p>
      <p class="links">
        <a href="/forgot-password">Ask for another link</a>
        <a href="/login">Back to log in</a>
      </p>
    </PublicLayout>
  );
}

interface ResetProps {
  csrf: string;
  /** The link's secret: the form posts back to the link's own address. */
  token: string;
  email: string;
  /** The account's active API tokens, said beside "Also revoke my API tokens". */
  activeTokens: number;
  errors?: FieldErrors;
}

/** The emailed link's page: a new password for the account it names. */
export function ResetPasswordPage({ csrf, token, email, activeTokens, errors }: ResetProps) {
  return (
    <PublicLayout title="Choose a new password" lead="Every browser logged in to this account is logged out when it changes.">
      <FormError errors={errors} />
      <form method="post" action={`/reset-password/${token}`} noValidate>
        <CsrfInput token={csrf} />
        {/* read-only: says whose password this is, and lets a password manager store the new one under it */}
        <Field label="Email" name="email" type="email" value={email} autocomplete="username" readOnly />
        <Field label="New password" name="password" type="password" autocomplete="new-password" hint="At least 8 characters." required errors={errors} />
        <RevokeTokensCheck id="reset-revoke-tokens" activeTokens={activeTokens} />
        <button type="submit">Set new password</button>
      </form>
    </PublicLayout>
  );
}

/** A link that is unknown, used or past its hour: the same page for all three. */
export function ResetLinkExpiredPage() {
  return (
    <PublicLayout title="This link no longer works">
      <p>This link has expired or was already used. A reset link works once, within an hour of being sent.</p>
      <p class="links">
        <a href="/forgot-password">Ask for a new link</a>
        <a href="/login">Back to log in</a>
      </p>
    </PublicLayout>
  );
}
