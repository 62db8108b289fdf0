import type { Selectable } from 'kysely';

/** An emailed invitation to join a workspace's team, for one address; pending until accepted, revoked or expired. */
export interface InvitationTable {
  id: string;
  workspaceId: string;
  /** Normalised (lower-cased) address: only the account with it may accept. */
  email: string;
  /** SHA-256 of the link's secret. */
  tokenHash: string;
  invitedBy: string;
  createdAt: number;
  expiresAt: number;
  acceptedAt: number | null;
  revokedAt: number | null;
}
export type InvitationRow = Selectable<InvitationTable>;
