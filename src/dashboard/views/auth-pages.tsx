import type { Flash } from '../flash.js';
import type { FieldErrors } from '../field-errors.js';
import { CsrfInput, Field, FormError } from './components.js';
import { PublicLayout } from './layout.js';
import { type LoginProvider, ProviderButton } from './oidc-pages.js';
import { PASSKEY_SCRIPTS, PasskeySignInForm } from './passkey-forms.js';

interface LoginProps {
  csrf: string;
  email?: string;
  next: string;
  errors?: FieldErrors;
  flash?: Flash | null;
  signupOpen: boolean;
  /** Single sign-on's button, when a provider is configured (oidc-pages.tsx). */
  provider?: LoginProvider | null;
  /** "Sign in with a passkey", when passkeys work at this installation's address (passkey-forms.tsx). */
  passkeys?: boolean;
}

export function LoginPage({ csrf, email, next, errors, flash, signupOpen, provider, passkeys }: LoginProps) {
  if (provider?.passwords === 'admin-link') {
    return (
      <PublicLayout title="Log in" flash={flash}>
        <FormError errors={errors} />
        <ProviderButton name={provider.name} next={next} primary />
        <p class="links">
          <a href={`/login?admin=1${next === '/' ? '' : `&next=${encodeURIComponent(next)}`}`}>Admin sign-in</a>
        </p>
      </PublicLayout>
    );
  }
  return (
    <PublicLayout
      title="Log in"
      flash={flash}
      lead={provider?.passwords === 'admin-form' ? 'Passwords sign in the installation’s admins only.' : undefined}
      scripts={passkeys ? PASSKEY_SCRIPTS : undefined}
    >
      <FormError errors={errors} />
      {provider && <ProviderButton name={provider.name} next={next} />}
      {provider && <p class="sign-in-or">or with your password</p>}
      <form method="post" action="/login" noValidate>
        <CsrfInput token={csrf} />
        <input type="hidden" name="next" value={next} />
        <Field label="Email" name="email" type="email" value={email} autocomplete="username" required errors={errors} />
        <Field label="Password" name="password" type="password" autocomplete="current-password" required errors={errors} />
        <button type="submit">Log in</button>
      </form>
      {passkeys && <PasskeySignInForm csrf={csrf} next={next} />}
      <p class="links">
        <a href="/forgot-password">Forgot your password?</a>
        {signupOpen && <a href="/signup">Create an account</a>}
      </p>
    </PublicLayout>
  );
}

interface SignupProps {
  csrf: string;
  email?: string;
  errors?: FieldErrors;
  /** An invitation's secret, carried through the form; its address is the only one allowed. */
  invitation?: { token: string; email: string; workspaceName: string };
}

/** Sign-up with a password at once: the installation's first account, or by an invitation's link (open sign-up: signup-pages.tsx). */
export function SignupPage({ csrf, email, errors, invitation }: SignupProps) {
  const lead = invitation
    ? `Create your account to join the workspace “${invitation.workspaceName}”.`
    : 'This is the first account of this Formgate installation: it becomes the instance admin.';
  return (
    <PublicLayout title="Create your account" lead={lead}>
      <FormError errors={errors} />
      <form method="post" action="/signup" noValidate>
        <CsrfInput token={csrf} />
        {invitation && <input type="hidden" name="invitation" value={invitation.token} />}
        <Field
          label="Email"
          name="email"
          type="email"
          value={invitation?.email ?? email}
          readOnly={invitation !== undefined}
          autocomplete="username"
          required
          errors={errors}
        />
        <Field label="Password" name="password" type="password" autocomplete="new-password" hint="At least 8 characters." required errors={errors} />
        <button type="submit">Create account</button>
      </form>
      <p class="links">
        <a href={invitation ? `/login?next=${encodeURIComponent(`/invitations/${invitation.token}`)}` : '/login'}>Already have an account? Log in</a>
      </p>
    </PublicLayout>
  );
}

/** Sign-up is closed, or open to invited people only. */
export function SignupClosedPage({ byInvitation }: { byInvitation: boolean }) {
  return (
    <PublicLayout title="Sign-up is not open">
      <p>
        {byInvitation
          ? 'New accounts on this installation are by invitation: ask a workspace owner to invite you, then follow the link in the email.'
          : 'This installation does not take new accounts. Ask its administrator for one.'}
      </p>
      <p class="links">
        <a href="/login">Log in</a>
      </p>
    </PublicLayout>
  );
}
