import type { Database, Queryable } from '../db/database.js';
import type { WorkspaceRow } from '../db/schema/workspace.js';
import { ProblemError } from '../errors.js';
import type { PlanRules } from '../domain/plans.js';
import type { AuditLog } from './audit-log.js';
import type { RecipientService } from './recipients.js';
import { seatsTaken } from './seats.js';
import { unassignLeaver } from './triage.js';
import type { WorkspaceService } from './workspaces.js';

export type Role = 'owner' | 'member';

/** One person of a workspace's team, as the members page lists them. */
export interface Member {
  userId: string;
  email: string;
  role: Role;
  joinedAt: number;
  /** The account that created the workspace (`workspaces.owner_id`): never removed, cannot leave. */
  creator: boolean;
}

/** A workspace's team: who is in it, and the owners' and members' changes to it. */
export class TeamService {
  constructor(
    private readonly database: Database,
    private readonly workspaces: WorkspaceService,
    private readonly recipients: RecipientService,
    private readonly audit: AuditLog,
  ) {}

  /** The installation's plan rules (the member limit). */
  get plans(): PlanRules {
    return this.workspaces.plans;
  }

  /** The team, oldest member first, for any member of the workspace. */
  async listMembers(userId: string, workspaceId: string): Promise<Member[]> {
    return this.members(await this.workspaces.getForMember(userId, workspaceId), this.database.db);
  }

  private async members(workspace: WorkspaceRow, db: Queryable, only?: string): Promise<Member[]> {
    let query = db
      .selectFrom('workspaceMembers')
      .innerJoin('users', 'users.id', 'workspaceMembers.userId')
      .select(['workspaceMembers.userId', 'users.email', 'workspaceMembers.role', 'workspaceMembers.createdAt'])
      .where('workspaceMembers.workspaceId', '=', workspace.id);
    if (only !== undefined) query = query.where('workspaceMembers.userId', '=', only);
    const rows = await query.orderBy('workspaceMembers.createdAt').orderBy('users.email').execute();
    return rows.map((r) => ({ userId: r.userId, email: r.email, role: r.role, joinedAt: r.createdAt, creator: r.userId === workspace.ownerId }));
  }

  /** How many seats are taken and how many the plan has (null: unlimited), for any member. */
  async seats(userId: string, workspaceId: string): Promise<{ taken: number; limit: number | null }> {
    const workspace = await this.workspaces.getForMember(userId, workspaceId);
    return { taken: await seatsTaken(this.database.db, workspaceId), limit: this.plans.limits(workspace.plan).members };
  }

  /** The account's role in the workspace; `not_found` when it is not a member. */
  async roleOf(userId: string, workspaceId: string, db: Queryable = this.database.db): Promise<Role> {
    const row = await db.selectFrom('workspaceMembers').select('role').where('workspaceId', '=', workspaceId).where('userId', '=', userId).executeTakeFirst();
    if (!row) throw new ProblemError('not_found', `Workspace ${workspaceId} was not found.`);
    return row.role;
  }

  /** The workspace, if the account is one of its owners: members see the team but do not change it. */
  /**
   * An owner requires a second factor of every member (issue 43): a member without one is sent to set
   * one up at their next page. Owners only.
   */
  async setRequireTwoFactor(ownerId: string, workspaceId: string, required: boolean): Promise<void> {
    const workspace = await this.requireOwner(ownerId, workspaceId);
    await this.database.transaction(async (trx) => {
      await trx
        .updateTable('workspaces')
        .set({ requireTwoFactor: required ? 1 : 0, updatedAt: Date.now() })
        .where('id', '=', workspaceId)
        .execute();
      const target = { kind: 'workspace', id: workspaceId, name: workspace.name };
      await this.audit.record({ action: 'workspace.settings_changed', workspaceId, target, details: { requireTwoFactor: required } }, trx);
    });
  }

  /** The names of the account's workspaces that require a second factor (a few at most; said on its two-factor page). */
  async requiringSecondFactor(userId: string): Promise<string[]> {
    const rows = await this.database.db
      .selectFrom('workspaceMembers')
      .innerJoin('workspaces', 'workspaces.id', 'workspaceMembers.workspaceId')
      .select('workspaces.name')
      .where('workspaceMembers.userId', '=', userId)
      .where('workspaces.requireTwoFactor', '=', 1)
      .orderBy('workspaces.name')
      .limit(3)
      .execute();
    return rows.map((row) => row.name);
  }

  /** How many of the workspace's members have no second factor yet (said beside the setting). */
  async membersWithoutSecondFactor(workspaceId: string): Promise<number> {
    const row = await this.database.db
      .selectFrom('workspaceMembers')
      .innerJoin('users', 'users.id', 'workspaceMembers.userId')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('workspaceMembers.workspaceId', '=', workspaceId)
      .where('users.secondFactorAt', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async requireOwner(userId: string, workspaceId: string, db: Queryable = this.database.db): Promise<WorkspaceRow> {
    const workspace = await this.workspaces.getForMember(userId, workspaceId, db);
    if ((await this.roleOf(userId, workspaceId, db)) !== 'owner') {
      throw new ProblemError('forbidden', `Only the owners of ${workspace.name} can change its team.`);
    }
    return workspace;
  }

  /** The member an owner may remove (anyone but the workspace's creator): the confirmation page and the removal ask the same. */
  async removable(
    ownerId: string,
    workspaceId: string,
    memberUserId: string,
    db: Queryable = this.database.db,
  ): Promise<{ workspace: WorkspaceRow; member: Member }> {
    const workspace = await this.requireOwner(ownerId, workspaceId, db);
    const [member] = await this.members(workspace, db, memberUserId);
    if (!member) throw new ProblemError('not_found', `That person is not a member of ${workspace.name}.`);
    if (member.creator) throw new ProblemError('conflict', `${member.email} created ${workspace.name} and cannot be removed from it.`);
    return { workspace, member };
  }

  /** An owner removes someone from the team; they lose the workspace at their next request (page or API). */
  async removeMember(ownerId: string, workspaceId: string, memberUserId: string): Promise<Member> {
    return this.database.transaction(async (trx) => {
      const { member } = await this.removable(ownerId, workspaceId, memberUserId, trx);
      await trx.deleteFrom('workspaceMembers').where('workspaceId', '=', workspaceId).where('userId', '=', memberUserId).execute();
      await unassignLeaver(trx, workspaceId, memberUserId);
      // their address on the workspace's forms now needs a confirmation like anyone else's
      await this.recipients.memberLeft(trx, workspaceId, member.email, ownerId);
      await this.audit.record({ action: 'member.removed', workspaceId, target: { kind: 'account', id: member.userId, name: member.email } }, trx);
      return member;
    });
  }

  /** The workspace, if the account may leave it: its creator cannot, as a workspace always keeps the account that made it. */
  async leavable(userId: string, workspaceId: string): Promise<WorkspaceRow> {
    const workspace = await this.workspaces.getForMember(userId, workspaceId);
    if (workspace.ownerId === userId) {
      throw new ProblemError('conflict', `You created ${workspace.name}, so you cannot leave it: a workspace always keeps the account that created it.`);
    }
    return workspace;
  }

  /** A member leaves a workspace; their address on its forms now needs a confirmation like anyone else's. */
  async leave(userId: string, workspaceId: string): Promise<WorkspaceRow> {
    const workspace = await this.leavable(userId, workspaceId);
    await this.database.transaction(async (trx) => {
      const user = await trx.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirstOrThrow();
      await trx.deleteFrom('workspaceMembers').where('workspaceId', '=', workspaceId).where('userId', '=', userId).execute();
      await unassignLeaver(trx, workspaceId, userId);
      await this.recipients.memberLeft(trx, workspaceId, user.email, null);
      await this.audit.record({ action: 'member.left', workspaceId, target: { kind: 'account', id: userId, name: user.email } }, trx);
    });
    return workspace;
  }
}
