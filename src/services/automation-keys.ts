import { createHash, randomBytes } from 'node:crypto';
import type { Database } from '../db/database.js';
import type { AutomationKeyRow } from '../db/schema/automation.js';
import type { TokenRow } from '../db/schema/token.js';
import { unlessStorageUnavailable } from '../db/storage-errors.js';
import { AUTOMATION_KEY_PREFIX, AUTOMATION_KEY_SCOPES, KEYS_PER_WORKSPACE } from '../domain/hooks.js';
import { ProblemError, validationError } from '../errors.js';
import { newId } from '../ids.js';
import type { AuditLog } from './audit-log.js';
import type { TeamService } from './team.js';
import { invalidToken, type Principal } from './tokens.js';

// lastUsedAt is written at most once a minute per key, as for tokens
const LAST_USED_RESOLUTION_MS = 60_000;

function hashKey(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** The table of each resource a path or query names by id, and what the API calls it. */
const LOOKUPS: Record<string, ['forms' | 'submissions' | 'submissionFiles' | 'hooks', string]> = {
  formId: ['forms', 'Form'],
  submissionId: ['submissions', 'Submission'],
  fileId: ['submissionFiles', 'File'],
  hookId: ['hooks', 'Hook'],
};

/** A key as the automations page lists it, with who made it. */
export type ListedAutomationKey = AutomationKeyRow & { createdByEmail: string };

/**
 * A workspace's automation-tool keys (the spec's 2.3, rule 2; issue 42, item 1): made and revoked
 * by its owners in the dashboard, shown once, never returned by the API. A key reaches its own
 * workspace only, with the scopes an automation platform needs (AUTOMATION_KEY_SCOPES), acting as
 * the member who made it: it stops working when that member leaves, or their account is disabled.
 */
export class AutomationKeys {
  constructor(
    private readonly database: Database,
    private readonly team: TeamService,
    private readonly audit: AuditLog,
  ) {}

  /** Makes a key; the secret is returned here once and only its hash is kept. */
  async create(userId: string, workspaceId: string, rawName: string): Promise<{ key: AutomationKeyRow; secret: string }> {
    await this.team.requireOwner(userId, workspaceId);
    const name = rawName.trim();
    if (name.length < 1 || name.length > 64) throw validationError(['name: must be 1 to 64 characters'], 'The key needs a name.');
    const secret = AUTOMATION_KEY_PREFIX + randomBytes(32).toString('base64url');
    const key: AutomationKeyRow = {
      id: newId(),
      workspaceId,
      createdBy: userId,
      name,
      keyHash: hashKey(secret),
      lastUsedAt: null,
      revokedAt: null,
      createdAt: Date.now(),
    };
    await this.database.transaction(async (trx) => {
      const active = await trx.selectFrom('automationKeys').select(['name']).where('workspaceId', '=', workspaceId).where('revokedAt', 'is', null).execute();
      if (active.length >= KEYS_PER_WORKSPACE) {
        throw new ProblemError('conflict', `A workspace holds at most ${KEYS_PER_WORKSPACE} automation-tool keys; revoke one first.`);
      }
      if (active.some((other) => other.name.toLowerCase() === name.toLowerCase())) {
        throw new ProblemError('conflict', `The workspace already has a key named "${name}"; revoke it first or pick another name.`);
      }
      await trx.insertInto('automationKeys').values(key).execute();
      await this.audit.record({ action: 'automation_key.created', workspaceId, target: { kind: 'automation_key', id: key.id, name } }, trx);
    });
    return { key, secret };
  }

  /** The workspace's keys for its automations page, active ones first, for any member (owners change them). */
  async list(userId: string, workspaceId: string): Promise<ListedAutomationKey[]> {
    await this.team.roleOf(userId, workspaceId);
    const rows = await this.database.db
      .selectFrom('automationKeys')
      .innerJoin('users', 'users.id', 'automationKeys.createdBy')
      .selectAll('automationKeys')
      .select('users.email as createdByEmail')
      .where('automationKeys.workspaceId', '=', workspaceId)
      .orderBy('automationKeys.createdAt', 'desc')
      .orderBy('automationKeys.id', 'desc')
      // the active ones (at most KEYS_PER_WORKSPACE) and the latest revoked ones
      .limit(KEYS_PER_WORKSPACE * 5)
      .execute();
    return rows.sort((a, b) => Number(a.revokedAt !== null) - Number(b.revokedAt !== null));
  }

  /**
   * Revokes a key: it stops working at the next request, and the subscriptions made with it are
   * removed in the same transaction (nothing keeps posting for a key its owners took back).
   * Revoking a revoked key changes nothing. Returns the key and how many subscriptions went.
   */
  async revoke(userId: string, workspaceId: string, keyId: string): Promise<{ key: AutomationKeyRow; hooksRemoved: number }> {
    await this.team.requireOwner(userId, workspaceId);
    return this.database.transaction(async (trx) => {
      const key = await trx.selectFrom('automationKeys').selectAll().where('id', '=', keyId).where('workspaceId', '=', workspaceId).executeTakeFirst();
      if (!key) throw new ProblemError('not_found', 'The workspace has no such key.');
      if (key.revokedAt !== null) return { key, hooksRemoved: 0 };
      const revokedAt = Date.now();
      await trx.updateTable('automationKeys').set({ revokedAt }).where('id', '=', key.id).execute();
      const removed = await trx.deleteFrom('hooks').where('automationKeyId', '=', key.id).executeTakeFirst();
      const hooksRemoved = Number(removed.numDeletedRows);
      await this.audit.record(
        { action: 'automation_key.revoked', workspaceId, target: { kind: 'automation_key', id: key.id, name: key.name }, details: { hooksRemoved } },
        trx,
      );
      return { key: { ...key, revokedAt }, hooksRemoved };
    });
  }

  /**
   * Refuses, as `not_found` (the spec's answer for another account's resource), a call of a key
   * that names anything outside the key's workspace: the workspace, form, submission, file or hook
   * in its path, and the workspace or form of its query. A path parameter this check does not know
   * is refused too, so that an operation added later reaches nothing until it is taught here.
   */
  async requireReach(principal: Principal, params: Record<string, unknown>, query: Record<string, unknown>): Promise<void> {
    const own = principal.workspaceId;
    if (own === undefined) return;
    const named: [string, unknown][] = [
      ...Object.entries(params ?? {}),
      ...Object.entries(query ?? {}).filter(([name]) => name === 'workspaceId' || name === 'formId'),
    ];
    for (const [name, value] of named) {
      // names of a kind, not of a resource: a template's kind, an event
      if (name === 'kind' || name === 'event') continue;
      const id = String(value);
      const where = await this.workspaceOf(name, id);
      if (where !== own)
        throw new ProblemError(
          'not_found',
          where === undefined && !(name in LOOKUPS)
            ? 'The automation-tool key cannot reach this operation; use an API token.'
            : `${LOOKUPS[name]?.[1] ?? 'Resource'} ${id} was not found.`,
        );
    }
  }

  /** The workspace of the resource a parameter names; undefined when there is none (or the name is unknown). */
  private async workspaceOf(name: string, id: string): Promise<string | undefined> {
    if (name === 'workspaceId') return id;
    const lookup = LOOKUPS[name];
    if (!lookup) return undefined;
    const row = await this.database.db.selectFrom(lookup[0]).select('workspaceId').where('id', '=', id).executeTakeFirst();
    return row?.workspaceId;
  }

  /**
   * The principal behind a key: its maker, in its workspace only, with the key's scopes. Read on
   * each request (automation platforms call seldom), so a revoke, a member's leaving or a disabled
   * account applies at once; `invalid_token` otherwise, as for tokens.
   */
  async authenticate(secret: string): Promise<Principal> {
    if (secret.length > 200) throw invalidToken('The key is malformed.');
    const key = await this.database.db
      .selectFrom('automationKeys')
      .innerJoin('users', 'users.id', 'automationKeys.createdBy')
      .leftJoin('workspaceMembers', (join) =>
        join.onRef('workspaceMembers.workspaceId', '=', 'automationKeys.workspaceId').onRef('workspaceMembers.userId', '=', 'automationKeys.createdBy'),
      )
      .selectAll('automationKeys')
      .select(['users.disabledAt as accountDisabledAt', 'workspaceMembers.userId as memberId'])
      .where('automationKeys.keyHash', '=', hashKey(secret))
      .executeTakeFirst();
    if (!key) throw invalidToken('The automation-tool key is unknown.');
    if (key.revokedAt !== null) throw invalidToken('The automation-tool key has been revoked.');
    if (key.accountDisabledAt !== null) throw invalidToken('The account that made this automation-tool key is disabled.');
    if (key.memberId === null) throw invalidToken('The member who made this automation-tool key has left its workspace; an owner can make a new key.');
    const now = Date.now();
    if (key.lastUsedAt === null || now - Number(key.lastUsedAt) >= LAST_USED_RESOLUTION_MS) {
      await unlessStorageUnavailable(this.database.db.updateTable('automationKeys').set({ lastUsedAt: now }).where('id', '=', key.id).execute());
    }
    const token: TokenRow = {
      id: key.id,
      userId: key.createdBy,
      name: key.name,
      tokenHash: key.keyHash,
      scopes: JSON.stringify(AUTOMATION_KEY_SCOPES),
      expiresAt: null,
      lastUsedAt: key.lastUsedAt,
      revokedAt: null,
      createdAt: key.createdAt,
    };
    return { userId: key.createdBy, token, scopes: new Set(AUTOMATION_KEY_SCOPES), workspaceId: key.workspaceId, automationKeyId: key.id };
  }
}
