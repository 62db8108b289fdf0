import { successFlash } from '../flash.js';
import type { FieldErrors } from '../field-errors.js';
import { CsrfInput, Field, FormError } from './components.js';
import { PublicLayout } from './layout.js';

interface OpenSignupProps {
  csrf: string;
  email?: string;
  errors?: FieldErrors;
}

/** Open sign-up's first step: an address, which the emailed link then proves. */
export function OpenSignupPage({ csrf, email, errors }: OpenSignupProps) {
  return (
    <PublicLayout title="Create your account" lead="Enter your email address: we will send you a link to choose a password and finish.">
      <FormError errors={errors} />
      <form method="post" action="/signup" noValidate>
        <CsrfInput token={csrf} />
        <Field label="Email" name="email" type="email" value={email} autocomplete="email" required errors={errors} />
        <button type="submit">Send sign-up link</button>
      </form>
      <p class="links">
        <a href="/login">Already have an account? Log in</a>
      </p>
    </PublicLayout>
  );
}

/**
 * The one answer to every well-formed address, whether or not it has an account (or was over a
 * limit): `message` names the address, carried from the form by a one-time flash cookie.
 */
export function SignupLinkSentPage({ message }: { message: string | null }) {
  return (
    <PublicLayout title="Check your email" flash={successFlash(message ?? 'We sent a link to the address you gave.')}>
      <p>Follow it to finish signing up; it works for 24 hours. Nothing came after a few minutes? Look in your spam folder, or ask again.</p>
      <p class="links">
        <a href="/signup">Ask for another link</a>
        <a href="/login">Log in</a>
      </p>
    </PublicLayout>
  );
}

interface ConfirmProps {
  csrf: string;
  /** The link's token: posted back with the password. */
  token: string;
  email: string;
  /** The new workspace's name: offered from the address (domain/workspace-name.ts), or as typed after a refusal. */
  workspaceName: string;
  errors?: FieldErrors;
}

/** The emailed link's page: a password for the account of the address the link proved, and its workspace's name. */
export function ConfirmSignupPage({ csrf, token, email, workspaceName, errors }: ConfirmProps) {
  return (
    <PublicLayout title="Choose your password" lead="Your address is confirmed. Choose a password to create your account.">
      <FormError errors={errors} />
      <form method="post" action="/signup/confirm" noValidate>
        <CsrfInput token={csrf} />
        <input type="hidden" name="token" value={token} />
        {/* read-only: the link proved this address; a password manager stores the password under it */}
        <Field label="Email" name="email" type="email" value={email} autocomplete="username" readOnly />
        <Field label="Password" name="password" type="password" autocomplete="new-password" hint="At least 8 characters." required errors={errors} />
        <Field
          label="Workspace name"
          name="workspaceName"
          value={workspaceName}
          hint="Your workspace holds your forms and your team. 1 to 128 characters; you can rename it later."
          autocomplete="organization"
          required
          errors={errors}
        />
        <button type="submit">Create account</button>
      </form>
    </PublicLayout>
  );
}

/** A link whose address has an account now: it made it (or someone did since); log in instead. */
export function SignupLinkUsedPage({ email }: { email: string }) {
  return (
    <PublicLayout title="This link was used">
      <p>An account with the address {email} exists already: this link was used. Log in to it.</p>
      <p class="links">
        <a href="/login">Log in</a>
        <a href="/forgot-password">Forgot your password?</a>
      </p>
    </PublicLayout>
  );
}

/** A link past its 24 hours, or one this installation never made: the same page for both. */
export function SignupLinkExpiredPage() {
  return (
    <PublicLayout title="This link no longer works">
      <p>This sign-up link has expired or is not valid. A sign-up link works for 24 hours after it is sent.</p>
      <p class="links">
        <a href="/signup">Ask for a new link</a>
        <a href="/login">Log in</a>
      </p>
    </PublicLayout>
  );
}
