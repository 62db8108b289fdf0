import type { Database } from '../db/database.js';
import type { FileStore } from '../files/file-store.js';
import { type InstanceUsage, isPlan, type Plan, PLANS, planLabel } from '../domain/plans.js';
import { type AccountFate, AdminAccounts } from './admin-accounts.js';
import { type InstanceHealth, InstanceHealthService } from './instance-health.js';
import type { InstanceSettings, InstanceSettingsView } from './instance-settings.js';
import { ProblemError, validationError } from '../errors.js';
import { keysetPage, type Page, type PageRequest } from './pagination.js';
import type { AuditLog } from './audit-log.js';
import type { WorkspaceService } from './workspaces.js';

/** An account as the instance admin sees it. */
export interface AccountSummary {
  id: string;
  email: string;
  isAdmin: boolean;
  /** When the admin disabled it; null: active. */
  disabledAt: number | null;
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
  private readonly accounts: AdminAccounts;
  private readonly health: InstanceHealthService;

  constructor(
    private readonly database: Database,
    private readonly workspaces: WorkspaceService,
    private readonly instance: InstanceSettings,
    private readonly audit: AuditLog,
    files: FileStore | null = null,
  ) {
    this.accounts = new AdminAccounts(database, files, audit);
    this.health = new InstanceHealthService(database);
  }

  /** The admin page exists for the instance admin only: anyone else finds nothing there (`not_found`). */
  requireAdmin(user: { isAdmin: number }): void {
    if (user.isAdmin !== 1) throw new ProblemError('not_found', 'There is nothing here.');
  }

  /** Every account of the installation, newest first, with how many workspaces it belongs to. */
  async listAccounts(user: { isAdmin: number }, page: PageRequest): Promise<Page<AccountSummary>> {
    this.requireAdmin(user);
    const query = this.database.db
      .selectFrom('users')
      .select(['users.id', 'users.email', 'users.isAdmin', 'users.disabledAt', 'users.createdAt'])
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
    if (!isPlan(plan)) throw validationError([`plan: choose one of the plans listed (${PLANS.map(planLabel).join(', ')})`]);
    return this.workspaces.setPlan(workspaceId, plan);
  }

  /** What disabling or deleting the account does to its workspaces, shown before the admin confirms. */
  async accountFate(user: { isAdmin: number }, accountId: string): Promise<AccountFate> {
    this.requireAdmin(user);
    return this.accounts.fate(accountId);
  }

  /** Disables or enables an account (never the admin's own). */
  async setAccountDisabled(user: { isAdmin: number }, accountId: string, disabled: boolean) {
    this.requireAdmin(user);
    return this.accounts.setDisabled(accountId, disabled);
  }

  /** Deletes an account and the workspaces it alone owns (never the admin's own). */
  async deleteAccount(user: { isAdmin: number }, accountId: string) {
    this.requireAdmin(user);
    return this.accounts.delete(accountId);
  }

  /** The backlog, the failing channels and the version. */
  async instanceHealth(user: { isAdmin: number }): Promise<InstanceHealth> {
    this.requireAdmin(user);
    return this.health.read();
  }

  /** How the installation is used and the webhook allow list, as the admin page shows them. */
  settings(user: { isAdmin: number }): InstanceSettingsView {
    this.requireAdmin(user);
    return this.instance.view();
  }

  /** Team or hosting mode; refused while FORMGATE_DEFAULT_PLAN decides. */
  async setUsage(user: { isAdmin: number }, usage: string): Promise<InstanceUsage> {
    this.requireAdmin(user);
    if (this.instance.view().defaultPlanFromEnvironment) {
      throw validationError(['usage: FORMGATE_DEFAULT_PLAN is set, so plans apply; unset it and restart to choose here']);
    }
    const before = this.instance.usage();
    const after = await this.instance.setUsage(usage);
    if (after !== before) await this.audit.record({ action: 'instance.settings_changed', details: { usage: { from: before, to: after } } });
    return after;
  }

  /** The private networks and hosts webhooks may reach, besides FORMGATE_WEBHOOK_ALLOW. */
  async setWebhookAllow(user: { isAdmin: number }, text: string): Promise<void> {
    this.requireAdmin(user);
    const list = await this.instance.setWebhookAllow(text);
    await this.audit.record({ action: 'instance.settings_changed', details: { webhookAllow: [...list.networks.map((n) => n.text), ...list.hosts] } });
  }

  /** The admin page's "Require a second factor of every account" (issue 43). */
  async setRequireTwoFactor(user: { isAdmin: number }, required: boolean): Promise<void> {
    this.requireAdmin(user);
    await this.instance.setRequireTwoFactor(required);
    await this.audit.record({ action: 'instance.settings_changed', details: { requireTwoFactor: required } });
  }
}
