import type { Queryable } from '../db/database.js';
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
 * the seat being taken or replaced.
 */
export async function seatsTaken(db: Queryable, workspaceId: string, except?: string): Promise<number> {
  const now = Date.now();
  const [members, pending] = await Promise.all([
    db
      .selectFrom('workspaceMembers')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('workspaceId', '=', workspaceId)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('invitations')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('workspaceId', '=', workspaceId)
      .where('acceptedAt', 'is', null)
      .where('revokedAt', 'is', null)
      .where('expiresAt', '>', now)
      .where('email', '!=', except ?? '')
      .where((eb) =>
        eb(
          'email',
          'not in',
          eb
            .selectFrom('workspaceMembers')
            .innerJoin('users', 'users.id', 'workspaceMembers.userId')
            .select('users.email')
            .where('workspaceMembers.workspaceId', '=', workspaceId),
        ),
      )
      .executeTakeFirstOrThrow(),
  ]);
  return Number(members.n) + Number(pending.n);
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
