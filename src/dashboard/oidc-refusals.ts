import type { OidcRefusal } from '../services/oidc-accounts.js';
import type { OidcFailure } from '../services/oidc-client.js';

/** The same words as the login page's for a disabled account. */
export const DISABLED = 'This account is disabled by the installation’s admin: it cannot log in.';

/** Why single sign-on did not sign someone in: the account's side, or the provider's. */
export type Failure = OidcRefusal | 'not_this_account' | OidcFailure;

/** What each refusal says to the person, in the provider's name. */
export function refusalWords(reason: Failure, name: string, email: string | null): { title: string; detail: string; status: number } {
  const address = email ?? 'your address';
  switch (reason) {
    case 'unverified_email':
      return {
        title: 'Your email address is not verified',
        detail: `${name} does not say that ${address} is verified, so it cannot be matched to an account here. Verify the address at ${name} (or ask its admin), then sign in again.`,
        status: 403,
      };
    case 'no_email':
      return {
        title: 'No email address',
        detail: `${name} gave no email address for you, so no account here can be found or made. Ask its admin to send the email claim.`,
        status: 403,
      };
    case 'no_account':
      return {
        title: 'No account here',
        detail: `No account here has the address ${address}, and this installation makes none at a first sign-in. Ask its admin for an account or an invitation.`,
        status: 403,
      };
    case 'not_matched':
      return {
        title: 'No place for you here',
        detail: `Your ${name} account gives you no place on this installation. Ask its admin if you should have one.`,
        status: 403,
      };
    case 'disabled':
      return { title: 'Account disabled', detail: DISABLED, status: 403 };
    case 'not_this_account':
      return {
        title: 'Another account',
        detail: `${name} signed in someone who is not linked to the account of this session. Sign in at ${name} as yourself and try again.`,
        status: 403,
      };
    case 'provider_unreachable':
      return {
        title: 'Sign-in is not available',
        detail: `${name} did not answer. Try again in a few minutes; if it goes on, tell the installation’s admin.`,
        status: 502,
      };
    case 'provider_refused':
      return { title: 'Not signed in', detail: `${name} did not sign you in. Start again from the login page.`, status: 403 };
    case 'invalid_callback':
      return {
        title: 'This sign-in could not be completed',
        detail: `The answer from ${name} expired, was already used, or belongs to a sign-in started in another browser. Start again from the login page.`,
        status: 400,
      };
  }
}
