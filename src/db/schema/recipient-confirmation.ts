import type { Selectable } from 'kysely';

/**
 * pending: asked (or about to be asked) to confirm; confirmed: said yes, or was on a form when
 * Formgate learnt to ask (migration 0018); declined: said no, and is never asked again by that workspace.
 */
export type ConfirmationState = 'pending' | 'confirmed' | 'declined';

/** Whether an address outside a workspace's team agreed to receive its forms' notifications. */
export interface RecipientConfirmationTable {
  workspaceId: string;
  /** Normalised (trimmed, lower-cased). */
  email: string;
  state: ConfirmationState;
  /** SHA-256 of the newest link's secret; null before a link was sent, and for rows made by the migration. */
  tokenHash: string | null;
  /** The member whose change asked for it (named in the email); null once that account is gone. */
  requestedBy: string | null;
  createdAt: number;
  updatedAt: number;
  /** When the newest link was emailed; null while none was (the workspace's hourly allowance was used up). */
  lastSentAt: number | null;
  /** When the address confirmed or declined. */
  answeredAt: number | null;
}
export type RecipientConfirmationRow = Selectable<RecipientConfirmationTable>;
