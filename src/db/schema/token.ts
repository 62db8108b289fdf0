import type { Insertable, Selectable } from 'kysely';

export interface TokenTable {
  id: string;
  userId: string;
  name: string;
  /** SHA-256 of the secret, hex; the secret itself is shown once and never stored. */
  tokenHash: string;
  /** JSON array of scope names. */
  scopes: string;
  expiresAt: number | null;
  lastUsedAt: number | null;
  revokedAt: number | null;
  createdAt: number;
}
export type TokenRow = Selectable<TokenTable>;
export type NewTokenRow = Insertable<TokenTable>;
