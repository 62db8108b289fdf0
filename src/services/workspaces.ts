import { sql } from 'kysely';
import type { Config } from '../config/config.js';
import { fromJson, type Database, type Queryable } from '../db/database.js';
import { PreparedQuery } from '../db/prepared-query.js';
import { submitterAddress } from '../domain/submitter-address.js';
import type { WorkspaceRow } from '../db/schema/workspace.js';
import type { Plan, PlanRules } from '../domain/plans.js';
import { ProblemError, validationError } from '../errors.js';
import { newId } from '../ids.js';
import { storedEmailControls } from '../jobs/channels/channel.js';
import { deliveryPlan, enqueueDeliveries } from '../jobs/submission-jobs.js';
import { hooksOfForm } from '../jobs/hook-jobs.js';
import { destinationsOfForm, type DestinationTarget } from '../jobs/destination-jobs.js';
import type { HookTarget } from '../domain/hooks.js';
import { enqueuePlanChangeEmails } from './mail-outbox.js';
import { keysetPage, newestAfter, type Page, type PageRequest, pageOf } from './pagination.js';
import { requireUnchanged } from './read-only-fields.js';
import { lockWorkspace, requireSeat, seatCounts, seatsTaken } from './seats.js';
import type { AuditLog } from './audit-log.js';
import type { UserService } from './users.js';
import { isVouchedFor } from '../domain/workspace-trust.js';

/** A workspace as the service hands it to pages and routes. */
export type Workspace = WorkspaceRow;

// named, not `*`: see PreparedQuery
const WORKSPACE_COLUMNS = [
  'id',
  'name',
  'plan',
  'ownerId',
  'submissionsUsed',
  'fileBytes',
  'fileBytesReserved',
  'requireTwoFactor',
  'quotaNotifiedAt',
  'createdAt',
  'updatedAt',
] as const satisfies readonly (keyof WorkspaceRow)[];

/**
 * Read-only fields of a Workspace that a client sent back with a rename: accepted when they hold the
 * workspace's values (`submissionsQuota`, `createdAt` and `updatedAt` are dropped by the route whatever they hold).
 */
export interface WorkspaceSentBack {
  id?: string;
  plan?: string;
}

/** A workspace as its member's list shows it: with the member's role and the creator's address. */
export type ListedWorkspace = WorkspaceRow & { role: 'owner' | 'member'; ownerEmail: string | null };

/** The account's workspaces, unordered and unlimited; named columns, not `*` (PreparedQuery). */
function listedWorkspaces(db: Queryable, userId: string) {
  return (
    db
      .selectFrom('workspaces')
      .innerJoin('workspaceMembers', 'workspaceMembers.workspaceId', 'workspaces.id')
      // the creator's address tells two workspaces of one name apart (a team's and one's own)
      .leftJoin('users as owners', 'owners.id', 'workspaces.ownerId')
      .select(WORKSPACE_COLUMNS.map((column) => `workspaces.${column}` as const))
      .select(['workspaceMembers.role', 'owners.email as ownerEmail'])
      .where('workspaceMembers.userId', '=', userId)
  );
}

export class WorkspaceService {
  // Every workspace route, and every search of a workspace, checks membership first.
  private readonly memberWorkspace = new PreparedQuery<{ userId: string; workspaceId: string }, WorkspaceRow>((db, { userId, workspaceId }) =>
    db
      .selectFrom('workspaces')
      .innerJoin('workspaceMembers', 'workspaceMembers.workspaceId', 'workspaces.id')
      .select(WORKSPACE_COLUMNS.map((column) => `workspaces.${column}` as const))
      .where('workspaces.id', '=', workspaceId)
      .where('workspaceMembers.userId', '=', userId),
  );

  // The dashboard's switcher on every page: the account's first workspaces, newest first.
  private readonly firstWorkspaces = new PreparedQuery<{ userId: string; limit: number }, ListedWorkspace>((db, { userId, limit }) =>
    newestAfter(listedWorkspaces(db, userId), null, 'workspaces').limit(limit),
  );

  // The workspace page's counts in one statement: forms, members and pending invitations.
  private readonly workspaceCounts = new PreparedQuery((db, { workspaceId, now }: { workspaceId: string; now: number }) =>
    db.selectNoFrom((eb) => [
      eb
        .selectFrom('forms')
        .select((inner) => inner.fn.countAll<number | string>().as('n'))
        .where('forms.workspaceId', '=', workspaceId)
        .as('forms'),
      ...seatCounts(eb, workspaceId, now, ''),
    ]),
  );

  constructor(
    private readonly database: Database,
    private readonly users: UserService,
    /** Where links in emails lead; read at each use, as serving on port 0 settles it only once listening. */
    private readonly config: Pick<Config, 'publicUrl'> & Partial<Pick<Config, 'signup'>>,
    /** The installation's plan rules (team mode: every feature, no caps), shared with the services built on this one. */
    readonly plans: PlanRules,
    private readonly audit: AuditLog,
  ) {}

  /** Whether the instance admin stands behind the workspace (domain/workspace-trust.ts): pages tell a stranger's owner what waits for it. */
  async vouchedFor(workspaceId: string): Promise<boolean> {
    if (this.config.signup !== 'open') return true;
    return vouchedWorkspace(this.database.db, workspaceId);
  }

  /** Every workspace the account belongs to, newest first, with the account's role in each. */
  async listForUser(userId: string, page: PageRequest): Promise<Page<ListedWorkspace>> {
    if (page.after === null) return pageOf(await this.firstWorkspaces.execute(this.database.db, { userId, limit: page.limit + 1 }), page.limit);
    return keysetPage(listedWorkspaces(this.database.db, userId), page, 'workspaces');
  }

  /** Whether the account belongs to an upgraded workspace: without one, its tokens reach nothing but `GET /me`. */
  async hasUpgraded(userId: string): Promise<boolean> {
    const row = await this.database.db
      .selectFrom('workspaces')
      .innerJoin('workspaceMembers', 'workspaceMembers.workspaceId', 'workspaces.id')
      .select('workspaces.id')
      .where('workspaceMembers.userId', '=', userId)
      .where('workspaces.plan', 'in', this.plans.upgradedPlans())
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The workspace if the account belongs to it; `not_found` otherwise, whether or not it exists. */
  async getForMember(userId: string, workspaceId: string, db: Queryable = this.database.db): Promise<WorkspaceRow> {
    const workspace = await this.memberWorkspace.executeTakeFirst(db, { userId, workspaceId });
    if (!workspace) throw new ProblemError('not_found', `Workspace ${workspaceId} was not found.`);
    return workspace;
  }

  /**
   * Creates a workspace owned by the account, on the installation's default plan (FREE unless
   * FORMGATE_DEFAULT_PLAN says otherwise; a payment upgrades it). As each account has one free
   * workspace, it may not own another FREE one at the time. Through the API (`api`), a paid feature,
   * the account must also already belong to an upgraded workspace.
   */
  async createWorkspace(userId: string, name: string, options: { api?: boolean } = {}): Promise<WorkspaceRow> {
    const nameProblem = workspaceNameProblem(name);
    if (nameProblem) throw validationError([nameProblem]);
    const plan = this.users.defaultPlan;
    return this.database.transaction(async (trx) => {
      // NOTE: a no-op write locks the account's row, so concurrent creates see each other's FREE workspace.
      await trx
        .updateTable('users')
        .set((eb) => ({ createdAt: eb.ref('createdAt') }))
        .where('id', '=', userId)
        .execute();
      const memberships = await trx
        .selectFrom('workspaces')
        .innerJoin('workspaceMembers', 'workspaceMembers.workspaceId', 'workspaces.id')
        .select(['workspaces.id', 'workspaces.plan', 'workspaces.ownerId'])
        .where('workspaceMembers.userId', '=', userId)
        .orderBy('workspaces.createdAt')
        .execute();
      if (options.api && !memberships.some((w) => this.plans.isUpgraded(w.plan))) {
        const free = memberships.find((w) => w.ownerId === userId) ?? memberships[0];
        throw upgradeRequired(free?.id ?? '', 'Creating workspaces through the API needs an upgraded workspace.');
      }
      const ownedFree = memberships.find((w) => w.ownerId === userId && w.plan === 'FREE');
      if (ownedFree && plan === 'FREE' && !this.plans.team) {
        throw new ProblemError('quota_exceeded', `An account has one free workspace and ${ownedFree.id} is it; upgrade it before creating another.`);
      }
      const now = Date.now();
      const workspace: WorkspaceRow = {
        id: newId(),
        name,
        plan,
        ownerId: userId,
        submissionsUsed: 0,
        quotaNotifiedAt: null,
        fileBytes: 0,
        fileBytesReserved: 0,
        requireTwoFactor: 0,
        createdAt: now,
        updatedAt: now,
      };
      await trx.insertInto('workspaces').values(workspace).execute();
      await trx.insertInto('workspaceMembers').values({ workspaceId: workspace.id, userId, role: 'owner', createdAt: now }).execute();
      await this.audit.record({ action: 'workspace.created', workspaceId: workspace.id, target: workspaceTarget(workspace) }, trx);
      return workspace;
    });
  }

  /** Renames a workspace the account belongs to; through the API (`api`), only an upgraded one. */
  async renameWorkspace(
    userId: string,
    workspaceId: string,
    name: string,
    options: { api?: boolean; sentBack?: WorkspaceSentBack } = {},
  ): Promise<WorkspaceRow> {
    const workspace = await this.getForMember(userId, workspaceId);
    if (options.api) requireUpgraded(workspace, this.plans);
    const sentBack = options.sentBack ?? {};
    requireUnchanged([
      { name: 'id', sent: sentBack.id, stored: workspace.id, why: `must be the workspace’s id (${workspace.id}), as in the path` },
      {
        name: 'plan',
        sent: sentBack.plan,
        stored: workspace.plan,
        why: `must be the workspace’s plan (${workspace.plan}): a plan changes with a payment, not through the API`,
      },
    ]);
    const nameProblem = workspaceNameProblem(name);
    if (nameProblem) throw validationError([nameProblem]);
    const updatedAt = Date.now();
    await this.database.transaction(async (trx) => {
      await trx.updateTable('workspaces').set({ name, updatedAt }).where('id', '=', workspaceId).execute();
      await this.audit.record(
        { action: 'workspace.renamed', workspaceId, target: workspaceTarget({ id: workspaceId, name }), details: { from: workspace.name } },
        trx,
      );
    });
    return { ...workspace, name, updatedAt };
  }

  /**
   * What a payment does on the hosted service (admin command, admin page). When the allowance
   * grows, held submissions are released oldest first, as far as it reaches: from then on they are
   * listed. When the plan changes (in hosting mode), the owners are told by email in the same transaction
   * (`tellOwners: false` only for test and benchmark fixtures that make an account as if it started on the plan).
   */
  async setPlan(workspaceId: string, plan: Plan, options: { tellOwners?: boolean } = {}): Promise<WorkspaceRow & { released: number; previousPlan: Plan }> {
    return this.database.transaction(async (trx) => {
      // NOTE: locked first, so no submission is counted between the read and the write below.
      const workspace = await lockWorkspace(trx, workspaceId);
      const updatedAt = Date.now();
      let used = workspace.submissionsUsed;
      const room = this.plans.limits(plan).submissions - used;
      const held =
        room <= 0
          ? []
          : await trx
              .selectFrom('submissions')
              .innerJoin('forms', 'forms.id', 'submissions.formId')
              .leftJoin('templates', (join) => join.onRef('templates.formId', '=', 'forms.id').on('templates.kind', '=', 'autoresponder'))
              .select(['submissions.seq', 'submissions.id', 'submissions.formId', 'submissions.data', 'submissions.emailControls', 'submissions.createdAt'])
              .select(['forms.notificationEmails', 'forms.slackChannel', 'forms.webhookUrl', 'forms.chatChannels', 'templates.paused as autoresponderPaused'])
              .where('submissions.workspaceId', '=', workspaceId)
              // a literal, so the partial index of held submissions (migration 0007) serves it
              .where('submissions.status', '=', sql.lit('held'))
              .orderBy('submissions.seq')
              .limit(room)
              .execute();
      if (held.length > 0) {
        await trx
          .updateTable('submissions')
          .set({ status: 'accepted' })
          .where(
            'seq',
            'in',
            held.map((h) => h.seq),
          )
          .execute();
        // Released ones are delivered like any accepted submission, in the order they arrived.
        const hooks = new Map<string, HookTarget[]>();
        const destinations = new Map<string, DestinationTarget[]>();
        for (const submission of held) {
          if (!hooks.has(submission.formId)) hooks.set(submission.formId, await hooksOfForm(trx, submission.formId, ['submission.created']));
          if (!destinations.has(submission.formId)) destinations.set(submission.formId, await destinationsOfForm(trx, submission.formId));
          const settings = { ...submission, plan, hooks: hooks.get(submission.formId), destinations: destinations.get(submission.formId) };
          const deliveries = deliveryPlan(settings, hasSubmitter(submission.data, submission.emailControls), this.plans);
          await enqueueDeliveries(trx, submission, deliveries);
        }
        used += held.length;
      }
      // Under the allowance again: the owners will be told the next time it runs out.
      const quotaNotifiedAt = used < this.plans.limits(plan).submissions ? null : workspace.quotaNotifiedAt;
      await trx.updateTable('workspaces').set({ plan, updatedAt, submissionsUsed: used, quotaNotifiedAt }).where('id', '=', workspaceId).execute();
      const changed = { ...workspace, plan, updatedAt, submissionsUsed: used, quotaNotifiedAt };
      if (plan !== workspace.plan) {
        const details = { from: workspace.plan, to: plan, released: held.length };
        await this.audit.record({ action: 'plan.changed', workspaceId, target: workspaceTarget(workspace), details }, trx);
      }
      // NOTE: team mode speaks no plans (issue 41, item 16): a change (the admin vouching for a stranger's workspace) changes nothing its owners see
      if (plan !== workspace.plan && options.tellOwners !== false && !this.plans.team) {
        await enqueuePlanChangeEmails(trx, { workspace: changed, from: workspace.plan, to: plan, released: held.length }, this.config.publicUrl, this.plans);
      }
      return { ...changed, released: held.length, previousPlan: workspace.plan };
    });
  }

  /**
   * Adds an existing account to a workspace's team (admin command), within the plan's member limit,
   * which pending invitations count against too; the account's own pending invitation is its seat.
   */
  async addMember(workspaceId: string, email: string): Promise<{ workspace: WorkspaceRow; userId: string }> {
    const user = await this.users.requireByEmail(email);
    return this.database.transaction(async (trx) => {
      const workspace = await lockWorkspace(trx, workspaceId);
      const member = await trx
        .selectFrom('workspaceMembers')
        .select('userId')
        .where('workspaceId', '=', workspaceId)
        .where('userId', '=', user.id)
        .executeTakeFirst();
      if (member) throw new ProblemError('conflict', `${user.email} is already a member of ${workspaceId}.`);
      requireSeat(workspace, await seatsTaken(trx, workspaceId, user.email), this.plans);
      await trx.insertInto('workspaceMembers').values({ workspaceId, userId: user.id, role: 'member', createdAt: Date.now() }).execute();
      await this.audit.record({ action: 'member.added', workspaceId, target: { kind: 'account', id: user.id, name: user.email } }, trx);
      return { workspace, userId: user.id };
    });
  }

  /**
   * How many forms and team members the workspace has, against its plan's limits. Members count
   * pending invitations, as the member limit does (and as the members page says).
   */
  async counts(workspaceId: string): Promise<{ formCount: number; memberCount: number }> {
    const row = (await this.workspaceCounts.executeTakeFirst(this.database.db, { workspaceId, now: Date.now() }))!;
    return { formCount: Number(row.forms), memberCount: Number(row.members) + Number(row.pending) };
  }

  async requireById(workspaceId: string, db: Queryable = this.database.db): Promise<WorkspaceRow> {
    const workspace = await db.selectFrom('workspaces').selectAll().where('id', '=', workspaceId).executeTakeFirst();
    if (!workspace) throw new ProblemError('not_found', `Workspace ${workspaceId} was not found.`);
    return workspace;
  }
}

/** Whether a stored submission names someone to answer (the autoresponder's condition), as intake decided it. */
export function hasSubmitter(data: unknown, emailControls: unknown): boolean {
  return submitterAddress({ data: fromJson<Record<string, unknown>>(data), controls: storedEmailControls(emailControls) }) !== null;
}

/** A workspace's name is 1 to 128 characters (2.2), as the API's schema counts them. */
/** A workspace as the audit log names it. */
export function workspaceTarget(workspace: Pick<WorkspaceRow, 'id' | 'name'>) {
  return { kind: 'workspace', id: workspace.id, name: workspace.name };
}

export function workspaceNameProblem(name: string): string | null {
  const length = [...name].length;
  if (length < 1 || length > 128) return 'name: must be 1 to 128 characters';
  return null;
}

export function upgradeRequired(workspaceId: string, detail = 'This operation needs an upgraded workspace.'): ProblemError {
  return new ProblemError('upgrade_required', `${detail} Workspace ${workspaceId} is on the FREE plan.`, { workspaceId });
}

/** The management API works on upgraded workspaces only. */
export function requireUpgraded(workspace: Pick<WorkspaceRow, 'id' | 'plan'>, plans: PlanRules): void {
  if (!plans.isUpgraded(workspace.plan)) throw upgradeRequired(workspace.id);
}

/** The Workspace resource of 2.2. */
export function toWorkspaceResource(w: WorkspaceRow, plans: PlanRules) {
  return {
    id: w.id,
    name: w.name,
    plan: w.plan,
    submissionsQuota: plans.submissionsLeft(w.plan, w.submissionsUsed),
    createdAt: new Date(w.createdAt).toISOString(),
    updatedAt: new Date(w.updatedAt).toISOString(),
  };
}

/** Whether the instance admin stands behind the workspace while sign-up is open: its stored plan, and who made it. */
export async function vouchedWorkspace(db: Queryable, workspaceId: string): Promise<boolean> {
  const row = await db
    .selectFrom('workspaces')
    .leftJoin('users', 'users.id', 'workspaces.ownerId')
    .select(['workspaces.plan', 'users.isAdmin as ownerIsAdmin'])
    .where('workspaces.id', '=', workspaceId)
    .executeTakeFirst();
  return row !== undefined && isVouchedFor(true, row);
}
