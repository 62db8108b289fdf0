import type { Generated } from 'kysely';
import type { DigestFrequency } from '../../domain/spam-digest.js';

/** A workspace's spam digest (migration 0030); a workspace without a row gets the daily one. */
export interface SpamDigestTable {
  workspaceId: string;
  frequency: Generated<DigestFrequency>;
  /** When its last digest run for this workspace listed spam; null: never. */
  sentAt: number | null;
  /** Spam created up to this time (epoch ms) has been listed; the next digest lists what came after. */
  listedThrough: number | null;
}
