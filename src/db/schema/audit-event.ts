import type { Selectable } from 'kysely';
import type { AuditVia } from '../../domain/audit.js';

/** One event of the audit log (migration 0042): who did what, when, from where. */
export interface AuditEventTable {
  id: string;
  at: number;
  /** Null: an account's or the installation's event. */
  workspaceId: string | null;
  /** Null: the system, or a command run on the server. */
  actorUserId: string | null;
  /** Copied when it happened, so it outlives the account. */
  actorEmail: string | null;
  via: AuditVia;
  ip: string | null;
  userAgent: string | null;
  /** `group.verb`, as domain/audit.ts names them. */
  action: string;
  targetKind: string | null;
  targetId: string | null;
  /** A short label of the target when it happened (a form's or token's name): never a submitted value. */
  targetName: string | null;
  /** JSON text: what changed (the names of settings), never a submitted value. */
  details: string | null;
}
export type AuditEventRow = Selectable<AuditEventTable>;
