import type { Database, Queryable } from '../db/database.js';
import type { Plan, WorkspaceRow } from '../db/schema/workspace.js';
import { ProblemError } from '../errors.js';
import { newId } from '../ids.js';
import { keysetPage, type Page, type PageRequest } from './pagination.js';
import { isUpgraded, planLimits, submissionsLeft } from './plans.js';
import type { UserService } from './users.js';

export class WorkspaceService {
  constructor(
    private readonly database: Database,
    private readonly users: UserService,
  ) {}

  /** Every workspace the account belongs to, newest first. */
  listForUser(userId: string, page: PageRequest): Promise<Page<WorkspaceRow>> {
    const query = this.database.db
      .selectFrom('workspaces')
      .innerJoin('workspaceMembers', 'workspaceMembers.workspaceId', 'workspaces.id')
      .selectAll('workspaces')
      .where('workspaceMembers.userId', '=', userId);
    return keysetPage(query, page, 'workspaces');
  }

  /** The workspace if the account belongs to it; `not_found` otherwise, whether or not it exists. */
  async getForMember(userId: string, workspaceId: string, db: Queryable = this.database.db): Promise<WorkspaceRow> {
    const workspace = await db
      .selectFrom('workspaces')
      .innerJoin('workspaceMembers', 'workspaceMembers.workspaceId', 'workspaces.id')
      .selectAll('workspaces')
      .where('workspaces.id', '=', workspaceId)
      .where('workspaceMembers.userId', '=', userId)
      .executeTakeFirst();
    if (!workspace) throw new ProblemError('not_found', `Workspace ${workspaceId} was not found.`);
    return workspace;
  }

  /**
   * Creates a workspace owned by the account, on the FREE plan (a payment upgrades it). The API is a
   * paid feature, so the account must already belong to an upgraded workspace; and as each account
   * has one free workspace, it may not own another FREE one at the time.
   */
  async createWorkspace(userId: string, name: string): Promise<WorkspaceRow> {
    return this.database.transaction(async (trx) => {
      // NOTE: a no-op write locks the account's row, so concurrent creates see each other's FREE workspace.
      await trx.updateTable('users').set((eb) => ({ createdAt: eb.ref('createdAt') })).where('id', '=', userId).execute();
      const memberships = await trx
        .selectFrom('workspaces')
        .innerJoin('workspaceMembers', 'workspaceMembers.workspaceId', 'workspaces.id')
        .select(['workspaces.id', 'workspaces.plan', 'workspaces.ownerId'])
        .where('workspaceMembers.userId', '=', userId)
        .orderBy('workspaces.createdAt')
        .execute();
      if (!memberships.some((w) => isUpgraded(w.plan))) {
        const free = memberships.find((w) => w.ownerId === userId) ?? memberships[0];
        throw upgradeRequired(free?.id ?? '', 'Creating workspaces through the API needs an upgraded workspace.');
      }
      const ownedFree = memberships.find((w) => w.ownerId === userId && w.plan === 'FREE');
      if (ownedFree) {
        throw new ProblemError('quota_exceeded', `An account has one free workspace and ${ownedFree.id} is it; upgrade it before creating another.`);
      }
      const now = Date.now();
      const workspace: WorkspaceRow = { id: newId(), name, plan: 'FREE', ownerId: userId, submissionsUsed: 0, createdAt: now, updatedAt: now };
      await trx.insertInto('workspaces').values(workspace).execute();
      await trx.insertInto('workspaceMembers').values({ workspaceId: workspace.id, userId, role: 'owner', createdAt: now }).execute();
      return workspace;
    });
  }

  async renameWorkspace(userId: string, workspaceId: string, name: string): Promise<WorkspaceRow> {
    const workspace = await this.getForMember(userId, workspaceId);
    requireUpgraded(workspace);
    const updatedAt = Date.now();
    await this.database.db.updateTable('workspaces').set({ name, updatedAt }).where('id', '=', workspaceId).execute();
    return { ...workspace, name, updatedAt };
  }

  /** What a payment does on the hosted service (admin command). */
  async setPlan(workspaceId: string, plan: Plan): Promise<WorkspaceRow> {
    const workspace = await this.requireById(workspaceId);
    const updatedAt = Date.now();
    await this.database.db.updateTable('workspaces').set({ plan, updatedAt }).where('id', '=', workspaceId).execute();
    return { ...workspace, plan, updatedAt };
  }

  /** Adds an existing account to a workspace's team, within the plan's member limit (admin command). */
  async addMember(workspaceId: string, email: string): Promise<{ workspace: WorkspaceRow; userId: string }> {
    const user = await this.users.requireByEmail(email);
    return this.database.transaction(async (trx) => {
      const workspace = await this.requireById(workspaceId, trx);
      const members = await trx.selectFrom('workspaceMembers').select('userId').where('workspaceId', '=', workspaceId).execute();
      if (members.some((m) => m.userId === user.id)) throw new ProblemError('conflict', `${user.email} is already a member of ${workspaceId}.`);
      const limit = planLimits(workspace.plan).members;
      if (limit !== null && members.length >= limit) {
        throw new ProblemError('quota_exceeded', `A ${workspace.plan} workspace has at most ${limit} team members.`);
      }
      await trx.insertInto('workspaceMembers').values({ workspaceId, userId: user.id, role: 'member', createdAt: Date.now() }).execute();
      return { workspace, userId: user.id };
    });
  }

  async requireById(workspaceId: string, db: Queryable = this.database.db): Promise<WorkspaceRow> {
    const workspace = await db.selectFrom('workspaces').selectAll().where('id', '=', workspaceId).executeTakeFirst();
    if (!workspace) throw new ProblemError('not_found', `Workspace ${workspaceId} was not found.`);
    return workspace;
  }
}

export function upgradeRequired(workspaceId: string, detail = 'This operation needs an upgraded workspace.'): ProblemError {
  return new ProblemError('upgrade_required', `${detail} Workspace ${workspaceId} is on the FREE plan.`, { workspaceId });
}

/** The management API works on upgraded workspaces only. */
export function requireUpgraded(workspace: Pick<WorkspaceRow, 'id' | 'plan'>): void {
  if (!isUpgraded(workspace.plan)) throw upgradeRequired(workspace.id);
}

/** The Workspace resource of 2.2. */
export function toWorkspaceResource(w: WorkspaceRow) {
  return {
    id: w.id,
    name: w.name,
    plan: w.plan,
    submissionsQuota: submissionsLeft(w.plan, w.submissionsUsed),
    createdAt: new Date(w.createdAt).toISOString(),
    updatedAt: new Date(w.updatedAt).toISOString(),
  };
}
