import type { Database } from '../db/database.js';
import { isPlan, type Plan, PLANS } from '../domain/plans.js';
import { ProblemError, validationError } from '../errors.js';
import { keysetPage, type Page, type PageRequest } from './pagination.js';
import type { WorkspaceService } from './workspaces.js';

/** An account as the instance admin sees it. */
export interface AccountSummary {
  id: string;
  email: string;
  isAdmin: boolean;
  createdAt: number;
  /** Workspaces it belongs to, as owner or member. */
  workspaceCount: number;
}

/** A workspace as the instance admin sees it. */
export interface WorkspaceSummary {
  id: string;
  name: string;
  plan: Plan;
  ownerEmail: string;
  submissionsUsed: number;
  memberCount: number;
  createdAt: number;
}

/** The instance admin's view of the installation: every account and workspace, and the plans. */
export class AdminService {
  constructor(
    private readonly database: Database,
    private readonly workspaces: WorkspaceService,
  ) {}

  /** The admin page exists for the instance admin only: anyone else finds nothing there (`not_found`). */
  requireAdmin(user: { isAdmin: number }): void {
    if (user.isAdmin !== 1) throw new ProblemError('not_found', 'There is nothing here.');
  }

  /** Every account of the installation, newest first, with how many workspaces it belongs to. */
  async listAccounts(user: { isAdmin: number }, page: PageRequest): Promise<Page<AccountSummary>> {
    this.requireAdmin(user);
    const query = this.database.db
      .selectFrom('users')
      .select(['users.id', 'users.email', 'users.isAdmin', 'users.createdAt'])
      .select((eb) =>
        eb
          .selectFrom('workspaceMembers')
          .select(eb.fn.countAll<number | string>().as('n'))
          .whereRef('workspaceMembers.userId', '=', 'users.id')
          .as('workspaceCount'),
      );
    const listed = await keysetPage(query, page, 'users');
    return {
      hasMore: listed.hasMore,
      rows: listed.rows.map((r) => ({ ...r, isAdmin: r.isAdmin === 1, workspaceCount: Number(r.workspaceCount ?? 0) })),
    };
  }

  /** Every workspace of the installation, newest first, with its owner's address and its team's size. */
  async listWorkspaces(user: { isAdmin: number }, page: PageRequest): Promise<Page<WorkspaceSummary>> {
    this.requireAdmin(user);
    const query = this.database.db
      .selectFrom('workspaces')
      .innerJoin('users', 'users.id', 'workspaces.ownerId')
      .select(['workspaces.id', 'workspaces.name', 'workspaces.plan', 'workspaces.submissionsUsed', 'workspaces.createdAt', 'users.email as ownerEmail'])
      .select((eb) =>
        eb
          .selectFrom('workspaceMembers')
          .select(eb.fn.countAll<number | string>().as('n'))
          .whereRef('workspaceMembers.workspaceId', '=', 'workspaces.id')
          .as('memberCount'),
      );
    const listed = await keysetPage(query, page, 'workspaces');
    return { hasMore: listed.hasMore, rows: listed.rows.map((r) => ({ ...r, memberCount: Number(r.memberCount ?? 0) })) };
  }

  /** The admin page's plan change: what `formgate workspaces set-plan` does, owners emailed included. */
  async changePlan(user: { isAdmin: number }, workspaceId: string, plan: string) {
    this.requireAdmin(user);
    if (!isPlan(plan)) throw validationError([`plan: must be one of ${PLANS.join(', ')}`]);
    return this.workspaces.setPlan(workspaceId, plan);
  }
}
