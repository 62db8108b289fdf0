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
  createdAt: number;
  updatedAt: number;
}
export type WorkspaceRow = Selectable<WorkspaceTable>;
export type NewWorkspaceRow = Insertable<WorkspaceTable>;

export interface WorkspaceMemberTable {
  workspaceId: string;
  userId: string;
  role: 'owner' | 'member';
  createdAt: number;
}
