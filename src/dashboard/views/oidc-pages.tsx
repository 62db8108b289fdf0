import type { VNode } from 'preact';
import type { FieldErrors } from '../field-errors.js';
import { ButtonLink, CsrfInput, Field, FormError } from './components.js';
import { PublicLayout } from './layout.js';

/** "Sign in with Keycloak": a link, not a form (the provider is another site, which a form's CSP `form-action 'self'` would not follow). */
export function ProviderButton({ name, next, primary = false }: { name: string; next: string; primary?: boolean }) {
  const href = next === '/' ? '/login/oidc' : `/login/oidc?next=${encodeURIComponent(next)}`;
  return (
    <p class="provider-sign-in">
      <ButtonLink href={href} variant={primary ? 'primary' : 'secondary'} class="wide">
        Sign in with {name}
      </ButtonLink>
    </p>
  );
}

interface LinkAccountProps {
  csrf: string;
  email: string;
  provider: string;
  errors?: FieldErrors;
}

/** The first sign-in by the provider of an account that has a password: its password, once, links the two. */
export function LinkAccountPage({ csrf, email, provider, errors }: LinkAccountProps) {
  return (
    <PublicLayout
      title="Link your account"
      lead={`An account here has the address ${email}. Give its password once to link it to your sign-in with ${provider}; after that, ${provider} alone signs you in.`}
    >
      <FormError errors={errors} />
      <form method="post" action="/login/oidc/link" noValidate>
        <CsrfInput token={csrf} />
        <Field label="Email" name="email" type="email" value={email} readOnly autocomplete="username" />
        <Field label="Password" name="password" type="password" autocomplete="current-password" required errors={errors} />
        <button type="submit">Link and sign in</button>
      </form>
      <p class="links">
        <a href="/forgot-password">Forgot your password?</a>
        <a href="/login">Cancel</a>
      </p>
    </PublicLayout>
  );
}

/** Single sign-on could not sign the person in: why, and the way back to the login page. */
export function SignInRefusedPage({ title, detail }: { title: string; detail: string }) {
  return (
    <PublicLayout title={title}>
      <p>{detail}</p>
      <p class="links">
        <a href="/login">Back to the login page</a>
      </p>
    </PublicLayout>
  );
}

/**
 * The provider on the login page: `shown`, its button beside the password form; with single sign-on
 * only, `admin-link`, its button alone and a link to the admins' password form, which is `admin-form`.
 */
export interface LoginProvider {
  name: string;
  passwords: 'shown' | 'admin-link' | 'admin-form';
}

/** A password form refused with single sign-on only: why, and the provider's button. */
export function SsoOnlyPage({ detail, button }: { detail: string; button: VNode | null }) {
  return (
    <PublicLayout title="Single sign-on only">
      <p>{detail}</p>
      {button}
      <p class="links">
        <a href="/login">Back to the login page</a>
      </p>
    </PublicLayout>
  );
}
