import { AUDIT_GROUPS, isAuditGroup } from '../domain/audit.js';
import { normaliseEmail } from '../domain/email-address.js';
import { ProblemError, validationError } from '../errors.js';
import type { AuditEvent, AuditFilter, AuditLog } from './audit-log.js';
import type { Page, PageRequest } from './pagination.js';
import type { TeamService } from './team.js';
import { requireUpgraded, type WorkspaceService } from './workspaces.js';

/** A filter as a page or the API receives it: a group, a person's address, and a time range (ms). */
export interface AuditFilterInput {
  group?: string;
  actor?: string;
  from?: number;
  to?: number;
}

/**
 * Reading the audit log (issue 43, item 4): a workspace's events for its owners (the dashboard's
 * page and the API), everything for the instance admin. A member who is no owner is refused with
 * `forbidden`; an outsider finds nothing (`not_found`); an automation-tool key never reads it
 * (docs/decisions.md, "Who reads the audit log").
 */
export class AuditEvents {
  constructor(
    private readonly log: AuditLog,
    private readonly workspaces: WorkspaceService,
    private readonly team: TeamService,
  ) {}

  /** A page of the workspace's events, newest first, for one of its owners; through the API (`api`), an upgraded workspace's only. */
  async forWorkspace(
    userId: string,
    workspaceId: string,
    input: AuditFilterInput,
    page: PageRequest,
    access: { api?: boolean } = {},
  ): Promise<Page<AuditEvent>> {
    const workspace = await this.workspaces.getForMember(userId, workspaceId);
    if (access.api) requireUpgraded(workspace, this.workspaces.plans);
    if ((await this.team.roleOf(userId, workspaceId)) !== 'owner') {
      throw new ProblemError('forbidden', `Only the owners of ${workspace.name} can read its audit log.`);
    }
    return this.log.list(workspaceId, auditFilter(input), page);
  }

  /** A page of every event of the installation, newest first, for the instance admin only (anyone else finds nothing). */
  async forInstallation(user: { isAdmin: number }, input: AuditFilterInput, page: PageRequest): Promise<Page<AuditEvent>> {
    if (user.isAdmin !== 1) throw new ProblemError('not_found', 'There is nothing here.');
    return this.log.list(null, auditFilter(input), page);
  }
}

/** The filter checked: a group the log knows, an address, a range that is not empty; `validation_error` naming each bad one. */
export function auditFilter(input: AuditFilterInput): AuditFilter {
  const problems: string[] = [];
  const filter: AuditFilter = {};
  if (input.group !== undefined && input.group !== '') {
    if (isAuditGroup(input.group)) filter.group = input.group;
    else problems.push(`group: must be one of ${Object.keys(AUDIT_GROUPS).join(', ')}`);
  }
  if (input.actor !== undefined && input.actor.trim() !== '') {
    const actor = normaliseEmail(input.actor);
    if (actor.length > 254 || !actor.includes('@')) problems.push('actor: must be an email address');
    else filter.actorEmail = actor;
  }
  if (input.from !== undefined) filter.from = input.from;
  if (input.to !== undefined) filter.to = input.to;
  if (filter.from !== undefined && filter.to !== undefined && filter.from >= filter.to) problems.push('to: must be later than from');
  if (problems.length > 0) throw validationError(problems, 'The audit log’s filter was refused.');
  return filter;
}
