import { randomBytes } from 'node:crypto';
import { type Database, fromJson } from '../db/database.js';
import type { HookRow } from '../db/schema/automation.js';
import { HOOKS_PER_WORKSPACE, type HookEvent } from '../domain/hooks.js';
import { ProblemError, validationError } from '../errors.js';
import { newId } from '../ids.js';
import { hookBody, type HookSample } from '../jobs/hook-jobs.js';
import type { OutboundGuard } from '../net/outbound-guard.js';
import type { AuditLog } from './audit-log.js';
import { keysetPage, type Page, type PageRequest } from './pagination.js';
import { SAMPLE_DATA } from './templates.js';
import type { Principal } from './tokens.js';
import { requireUpgraded, type WorkspaceService } from './workspaces.js';

/** What a subscription asks for. */
export interface HookInput {
  targetUrl: string;
  event: HookEvent;
  formId?: string | null;
  workspaceId?: string | null;
}

/** A hook as its list shows it: its secret only when it was just made. */
export type ListedHook = HookRow & { formName: string | null; madeWith: string | null };

const HOOK_COLUMNS = [
  'hooks.id',
  'hooks.workspaceId',
  'hooks.formId',
  'hooks.event',
  'hooks.targetUrl',
  'hooks.secret',
  'hooks.createdBy',
  'hooks.tokenId',
  'hooks.automationKeyId',
  'hooks.lastTriedAt',
  'hooks.lastStatus',
  'hooks.lastError',
  'hooks.createdAt',
] as const;

/**
 * REST-hook subscriptions (issue 42, item 2): the instant triggers of Zapier, Make, n8n and
 * Activepieces. A subscription belongs to a workspace (one form of it, or all), is made with an API
 * token or an automation-tool key and goes with it; its events are outbox jobs like a webhook's.
 */
export class HookService {
  constructor(
    private readonly database: Database,
    private readonly workspaces: WorkspaceService,
    private readonly outbound: OutboundGuard,
    private readonly audit: AuditLog,
  ) {}

  /** Subscribes; the hook's signing secret is in the answer once. */
  async subscribe(principal: Principal, input: HookInput): Promise<HookRow> {
    const problem = this.outbound.urlProblem(input.targetUrl);
    if (problem) throw validationError([`targetUrl: ${problem}`], 'The target URL cannot be used.');
    const workspaceId = await this.workspaceOf(principal, input);
    const workspace = await this.workspaces.getForMember(principal.userId, workspaceId);
    requireUpgraded(workspace, this.workspaces.plans);
    const hook: HookRow = {
      id: newId(),
      workspaceId,
      formId: input.formId ?? null,
      event: input.event,
      targetUrl: input.targetUrl,
      secret: `whsec_${randomBytes(32).toString('base64')}`,
      createdBy: principal.userId,
      tokenId: principal.automationKeyId ? null : principal.token.id,
      automationKeyId: principal.automationKeyId ?? null,
      lastTriedAt: null,
      lastStatus: null,
      lastError: null,
      createdAt: Date.now(),
    };
    await this.database.transaction(async (trx) => {
      const held = await trx
        .selectFrom('hooks')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('workspaceId', '=', workspaceId)
        .executeTakeFirstOrThrow();
      if (Number(held.n) >= HOOKS_PER_WORKSPACE) {
        throw new ProblemError('quota_exceeded', `A workspace holds at most ${HOOKS_PER_WORKSPACE} subscriptions; remove one first.`);
      }
      await trx.insertInto('hooks').values(hook).execute();
      await this.audit.record({ action: 'hook.created', workspaceId, target: hookTarget(hook), details: { event: hook.event, formId: hook.formId } }, trx);
    });
    return hook;
  }

  /** The hooks of the workspaces the caller reaches (or of one), newest first. */
  async list(principal: Principal, page: PageRequest, workspaceId?: string): Promise<Page<HookRow>> {
    const only = principal.workspaceId ?? workspaceId;
    if (only !== undefined) {
      if (principal.workspaceId && workspaceId !== undefined && workspaceId !== principal.workspaceId) throw notFound('Workspace', workspaceId);
      await this.workspaces.getForMember(principal.userId, only);
    }
    let query = this.database.db
      .selectFrom('hooks')
      .innerJoin('workspaceMembers', 'workspaceMembers.workspaceId', 'hooks.workspaceId')
      .select(HOOK_COLUMNS)
      .where('workspaceMembers.userId', '=', principal.userId);
    if (only !== undefined) query = query.where('hooks.workspaceId', '=', only);
    return keysetPage(query, page, 'hooks');
  }

  /** Removes a hook of a workspace the caller reaches; another's, or none, is `not_found`. */
  async unsubscribe(principal: Principal, hookId: string): Promise<void> {
    const hook = await this.reachable(principal, hookId);
    await this.database.transaction(async (trx) => {
      await trx.deleteFrom('hooks').where('id', '=', hook.id).execute();
      await this.audit.record({ action: 'hook.removed', workspaceId: hook.workspaceId, target: hookTarget(hook) }, trx);
    });
  }

  /** The workspace's hooks for its automations page (any member sees them), newest first: at most HOOKS_PER_WORKSPACE. */
  async forWorkspace(userId: string, workspaceId: string): Promise<ListedHook[]> {
    await this.workspaces.getForMember(userId, workspaceId);
    return this.database.db
      .selectFrom('hooks')
      .leftJoin('forms', 'forms.id', 'hooks.formId')
      .leftJoin('tokens', 'tokens.id', 'hooks.tokenId')
      .leftJoin('automationKeys', 'automationKeys.id', 'hooks.automationKeyId')
      .select(HOOK_COLUMNS)
      .select(['forms.name as formName'])
      .select((eb) => eb.fn.coalesce('automationKeys.name', 'tokens.name').as('madeWith'))
      .where('hooks.workspaceId', '=', workspaceId)
      .orderBy('hooks.createdAt', 'desc')
      .orderBy('hooks.id', 'desc')
      .limit(HOOKS_PER_WORKSPACE)
      .execute();
  }

  /** Removes one of the workspace's hooks from its automations page (owners only: the route asks TeamService). */
  async remove(workspaceId: string, hookId: string): Promise<boolean> {
    return this.database.transaction(async (trx) => {
      const hook = await trx.selectFrom('hooks').select(['id', 'targetUrl']).where('id', '=', hookId).where('workspaceId', '=', workspaceId).executeTakeFirst();
      if (!hook) return false;
      await trx.deleteFrom('hooks').where('id', '=', hook.id).execute();
      await this.audit.record({ action: 'hook.removed', workspaceId, target: hookTarget(hook) }, trx);
      return true;
    });
  }

  /**
   * What a subscription to `event` would receive, for a platform's editor: the newest of the form's
   * (or the workspace's) submissions of that kind, else a made-up one of SAMPLE_DATA. A list, as the
   * polling trigger's is.
   */
  async sample(principal: Principal, input: { event: HookEvent; formId?: string; workspaceId?: string }): Promise<HookSample[]> {
    const workspaceId = await this.workspaceOf(principal, input);
    const workspace = await this.workspaces.getForMember(principal.userId, workspaceId);
    requireUpgraded(workspace, this.workspaces.plans);
    let query = this.database.db
      .selectFrom('submissions')
      .select(['id', 'formId', 'data', 'createdAt'])
      .where('status', '=', input.event === 'submission.spam' ? 'spam' : 'accepted');
    query = input.formId ? query.where('formId', '=', input.formId) : query.where('workspaceId', '=', workspaceId);
    const latest = await query.orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
    const formId = latest?.formId ?? input.formId ?? (await this.anyForm(workspaceId));
    const submission = latest
      ? { id: latest.id, formId: latest.formId, data: fromJson<Record<string, unknown>>(latest.data), createdAt: Number(latest.createdAt) }
      : { id: 'sample', formId: formId ?? 'sample', data: { ...SAMPLE_DATA }, createdAt: Date.now() };
    return [hookBody(input.event, submission.id, submission.formId, submission.createdAt, input.event === 'submission.deleted' ? undefined : submission.data)];
  }

  /** The hook, if the caller reaches its workspace. */
  private async reachable(principal: Principal, hookId: string): Promise<HookRow> {
    const hook = await this.database.db
      .selectFrom('hooks')
      .innerJoin('workspaceMembers', 'workspaceMembers.workspaceId', 'hooks.workspaceId')
      .select(HOOK_COLUMNS)
      .where('hooks.id', '=', hookId)
      .where('workspaceMembers.userId', '=', principal.userId)
      .executeTakeFirst();
    if (!hook || (principal.workspaceId !== undefined && hook.workspaceId !== principal.workspaceId)) throw notFound('Hook', hookId);
    return hook;
  }

  /**
   * The workspace a subscription or a sample is for: the form's (the caller must reach it), else the
   * one named, else the key's, else the account's only workspace. An account of several must name one.
   */
  private async workspaceOf(principal: Principal, input: { formId?: string | null; workspaceId?: string | null }): Promise<string> {
    if (input.formId) {
      const form = await this.database.db
        .selectFrom('forms')
        .innerJoin('workspaceMembers', 'workspaceMembers.workspaceId', 'forms.workspaceId')
        .select('forms.workspaceId')
        .where('forms.id', '=', input.formId)
        .where('workspaceMembers.userId', '=', principal.userId)
        .executeTakeFirst();
      const reached = form && (principal.workspaceId === undefined || form.workspaceId === principal.workspaceId);
      if (!reached) throw notFound('Form', input.formId);
      if (input.workspaceId && input.workspaceId !== form.workspaceId) {
        throw validationError([`workspaceId: the form ${input.formId} is in another workspace`], 'The form is not in that workspace.');
      }
      return form.workspaceId;
    }
    if (principal.workspaceId) {
      if (input.workspaceId && input.workspaceId !== principal.workspaceId) throw notFound('Workspace', input.workspaceId);
      return principal.workspaceId;
    }
    if (input.workspaceId) return input.workspaceId;
    const memberships = await this.database.db.selectFrom('workspaceMembers').select('workspaceId').where('userId', '=', principal.userId).limit(2).execute();
    if (memberships.length === 1) return memberships[0]!.workspaceId;
    throw validationError(['workspaceId: is required when neither formId is given nor the token reaches a single workspace'], 'Name the workspace.');
  }

  private async anyForm(workspaceId: string): Promise<string | undefined> {
    const form = await this.database.db
      .selectFrom('forms')
      .select('id')
      .where('workspaceId', '=', workspaceId)
      .orderBy('createdAt', 'desc')
      .limit(1)
      .executeTakeFirst();
    return form?.id;
  }
}

/** The Hook resource: never its secret, which only the answer to its creation holds. */
/** A hook as the audit log names it: by its target's host (the whole address may hold a platform's secret). */
function hookTarget(hook: Pick<HookRow, 'id' | 'targetUrl'>) {
  let host: string | null = null;
  try {
    host = new URL(hook.targetUrl).host;
  } catch {}
  return { kind: 'hook', id: hook.id, name: host };
}

export function toHookResource(hook: HookRow) {
  return {
    id: hook.id,
    targetUrl: hook.targetUrl,
    event: hook.event,
    formId: hook.formId,
    workspaceId: hook.workspaceId,
    createdAt: new Date(Number(hook.createdAt)).toISOString(),
  };
}

function notFound(what: string, id: string): ProblemError {
  return new ProblemError('not_found', `${what} ${id} was not found.`);
}
