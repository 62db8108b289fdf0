import type { Selectable } from 'kysely';

/** A dashboard login. The cookie holds the secret; the table holds its SHA-256 only. */
export interface SessionTable {
  idHash: string;
  userId: string;
  createdAt: number;
  /** Touched at most once a minute; the idle expiry counts from here. */
  lastSeenAt: number;
  /** The absolute expiry, fixed at login. */
  expiresAt: number;
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
