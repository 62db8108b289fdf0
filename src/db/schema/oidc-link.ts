import type { Selectable } from 'kysely';

/** An account's sign-in by an OpenID provider: the issuer's `sub` for the person is this account (migration 0043). */
export interface OidcLinkTable {
  issuer: string;
  subject: string;
  userId: string;
  /** The address the provider gave when the link was made. */
  email: string | null;
  createdAt: number;
  lastSignInAt: number | null;
}
export type OidcLinkRow = Selectable<OidcLinkTable>;
