import type { Generated, Insertable, Selectable } from 'kysely';
import type { Plan } from '../../domain/plans.js';

export interface WorkspaceTable {
  id: string;
  name: string;
  plan: Plan;
  /** The account that created it; its one FREE workspace is counted against this account. */
  ownerId: string;
  /** Accepted submissions counted against the plan's allowance (never decremented). */
  submissionsUsed: number;
  /** When the owners were told the allowance ran out; cleared when it grows again. */
  quotaNotifiedAt: Generated<number | null>;
  /** Bytes of the workspace's stored files, against the plan's storage allowance (migration 0021). */
  fileBytes: Generated<number>;
  /** Bytes reserved by files being received, not yet stored or given back (migration 0025, db/file-reservations.ts). */
  fileBytesReserved: Generated<number>;
  /** 1 when an owner requires a second factor of every member (migration 0041). */
  requireTwoFactor: Generated<number>;
  createdAt: number;
  updatedAt: number;
}
export type WorkspaceRow = Selectable<WorkspaceTable>;
export type NewWorkspaceRow = Insertable<WorkspaceTable>;

export interface WorkspaceMemberTable {
  workspaceId: string;
  userId: string;
  role: 'owner' | 'member';
  /** 1 while the member wants the workspace's spam digest, 0 once they turned it off (migration 0030). */
  spamDigest: Generated<number>;
  /** 1 while the member wants the daily digest of the open submissions assigned to them, 0 (the default) otherwise (migration 0033). */
  assignedDigest: Generated<number>;
  /** When the member's last digest of what is assigned to them went out (ms); null: never (migration 0033). */
  assignedDigestSentAt: Generated<number | null>;
  /** The member's saved views of the inbox, as JSON (services/saved-views.ts); null: none (migration 0037). */
  savedViews: Generated<string | null>;
  createdAt: number;
}

/** What one post reserved of its workspace's storage allowance while its files stream (migration 0025). */
export interface FileReservationTable {
  id: string;
  workspaceId: string;
  bytes: number;
  /** Past it, the sweep gives the bytes back: a process that crashed mid-post never released them. */
  expiresAt: number;
}

/** A workspace's spam of one day (migration 0025): caught by the filter (count and bytes), and dropped with a full spam folder. */
export interface SpamDayTable {
  workspaceId: string;
  day: number;
  caught: number;
  bytes: number;
  dropped: number;
}
