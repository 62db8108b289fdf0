import type { ExpressionBuilder } from 'kysely';
import type { Queryable } from '../db/database.js';
import type { DB } from '../db/schema/index.js';
import type { WorkspaceRow } from '../db/schema/workspace.js';
import { ProblemError } from '../errors.js';
import { planLabel, type PlanRules } from '../domain/plans.js';

// The member limit's seats, shared by the team (invitations, joins) and the CLI's add-member.

/**
 * Locks the workspace's row until the transaction ends (a no-op write), so that two invitations or
 * joins at once count each other's seat; answers the workspace.
 */
export async function lockWorkspace(trx: Queryable, workspaceId: string): Promise<WorkspaceRow> {
  await trx
    .updateTable('workspaces')
    .set((eb) => ({ updatedAt: eb.ref('updatedAt') }))
    .where('id', '=', workspaceId)
    .execute();
  const workspace = await trx.selectFrom('workspaces').selectAll().where('id', '=', workspaceId).executeTakeFirst();
  if (!workspace) throw new ProblemError('not_found', `Workspace ${workspaceId} was not found.`);
  return workspace;
}

/**
 * Seats the plan's member limit counts: members plus pending invitations (not accepted, revoked or
 * expired) of addresses that are not members yet. `except`: an address whose pending invitation is
 * the seat being taken or replaced. One statement: in a transaction two would be two round trips.
 */
export async function seatsTaken(db: Queryable, workspaceId: string, except?: string): Promise<number> {
  const row = await db.selectNoFrom((eb) => seatCounts(eb, workspaceId, Date.now(), except ?? '')).executeTakeFirstOrThrow();
  return Number(row.members) + Number(row.pending);
}

/**
 * The two counts seatsTaken adds up, as subqueries a statement can select along with others (the
 * workspace page's counts). `except` is '' when there is none.
 */
export function seatCounts(eb: ExpressionBuilder<DB, never>, workspaceId: string, now: number, except: string) {
  const members = eb
    .selectFrom('workspaceMembers')
    .select((inner) => inner.fn.countAll<number | string>().as('n'))
    .where('workspaceMembers.workspaceId', '=', workspaceId);
  const pending = eb
    .selectFrom('invitations')
    .select((inner) => inner.fn.countAll<number | string>().as('n'))
    .where('invitations.workspaceId', '=', workspaceId)
    .where('invitations.acceptedAt', 'is', null)
    .where('invitations.revokedAt', 'is', null)
    .where('invitations.expiresAt', '>', now)
    .where('invitations.email', '!=', except)
    .where((inner) =>
      inner(
        'invitations.email',
        'not in',
        inner
          .selectFrom('workspaceMembers as seated')
          .innerJoin('users', 'users.id', 'seated.userId')
          .select('users.email')
          .where('seated.workspaceId', '=', workspaceId),
      ),
    );
  return [members.as('members'), pending.as('pending')] as const;
}

/** Refuses one more seat past the plan's member limit, in the words the CLI and the dashboard share. */
export function requireSeat(workspace: WorkspaceRow, taken: number, plans: PlanRules): void {
  const limit = plans.limits(workspace.plan).members;
  if (limit !== null && taken >= limit) {
    throw new ProblemError(
      'quota_exceeded',
      `A workspace on the ${planLabel(workspace.plan)} plan has at most ${limit} team members, counting pending invitations.`,
    );
  }
}
