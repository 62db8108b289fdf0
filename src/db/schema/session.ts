import type { Generated, Selectable } from 'kysely';

/** A dashboard login. The cookie holds the secret; the table holds its SHA-256 only. */
export interface SessionTable {
  idHash: string;
  userId: string;
  createdAt: number;
  /** Touched at most once a minute; the idle expiry counts from here. */
  lastSeenAt: number;
  /** The absolute expiry, fixed at login. */
  expiresAt: number;
  /** The browser's User-Agent and the client address at login, for the sessions page (migration 0041). */
  userAgent: Generated<string | null>;
  ip: Generated<string | null>;
  /** When this session last proved the account's second factor; null: never (no factor, or signed in before 0041). */
  secondFactorAt: Generated<number | null>;
}
export type SessionRow = Selectable<SessionTable>;

/** An emailed password reset link: single use, expiring, stored as the SHA-256 of its secret. */
export interface PasswordResetTable {
  tokenHash: string;
  userId: string;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
}

/** A single-use recovery code of an account with two factors: its SHA-256 only (migration 0041). */
export interface RecoveryCodeTable {
  userId: string;
  codeHash: string;
  usedAt: number | null;
  createdAt: number;
}

/** A passkey (a WebAuthn credential): `id` is the credential id (base64url), `publicKey` its COSE key (base64url). */
export interface PasskeyTable {
  id: string;
  userId: string;
  name: string;
  publicKey: string;
  /** The authenticator's signature counter: an assertion that does not move it forward (when it counts) is refused. */
  counter: Generated<number>;
  /** JSON array of the transports the authenticator named (usb, internal, hybrid…); null: none named. */
  transports: string | null;
  backedUp: Generated<number>;
  lastUsedAt: number | null;
  createdAt: number;
}
export type PasskeyRow = Selectable<PasskeyTable>;

/** A browser that skips the second factor for 30 days: its cookie's SHA-256. */
export interface RememberedBrowserTable {
  tokenHash: string;
  userId: string;
  createdAt: number;
  expiresAt: number;
}
