import { sql } from 'kysely';
import type { Database, Queryable } from '../db/database.js';
import type { AuditEventRow } from '../db/schema/audit-event.js';
import { AUDIT_NAME_MAX, AUDIT_USER_AGENT_MAX, type AuditAction, type AuditGroup, type AuditVia, auditGroupOf } from '../domain/audit.js';
import { cutText } from '../domain/cut-text.js';
import { newId } from '../ids.js';
import type { Keyset, Page, PageRequest } from './pagination.js';

/** Who is acting: a signed-in person (a session) or the account of an API token or key. */
export interface AuditActor {
  userId: string;
  /** Null when the caller does not know it (an API token): the account's address is read with the insert. */
  email: string | null;
}

/** Where a request's changes come from: set for every request of the dashboard and the API (web/audit-scene.ts). */
export interface AuditScene {
  via: 'dashboard' | 'api';
  ip: string | null;
  userAgent: string | null;
  /** Read when an event is recorded, after the request's session or token was read. */
  actor(): AuditActor | null;
}

/** What a service records; the request's scene fills in who and from where. */
export interface AuditEntry {
  action: AuditAction;
  /** Null or absent: an account's or the installation's event. */
  workspaceId?: string | null;
  /** The acting account when the service knows it (its `userId`); absent: the request's, or nobody. */
  actorUserId?: string | null;
  actorEmail?: string | null;
  /** An account acting for itself before it has a session (a sign-up): the actor of a request without one; none outside a request (a command). */
  newcomer?: AuditActor;
  target?: { kind: string; id: string; name?: string | null };
  /** What changed, by name (JSON): never a submitted value, a visitor's address or a file's name. */
  details?: Record<string, unknown>;
}

/** An event as pages and the API list it, with its workspace's name now (null: none, or deleted since). */
export type AuditEvent = AuditEventRow & Keyset & { workspaceName: string | null };

export interface AuditFilter {
  group?: AuditGroup;
  /** The actor's email address, as it was when they acted (lower case). */
  actorEmail?: string;
  /** From this time (ms, inclusive) until `to` (exclusive). */
  from?: number;
  to?: number;
}

/**
 * The audit log (issue 43, item 4): one insert per change, in the caller's transaction when it has
 * one (the change and its record commit together or not at all), otherwise right after the change,
 * and before the bytes of an export or a download go out; a failure to record is the request's
 * failure, never swallowed. Who and from where come from the request's scene; outside a request
 * (an admin command, a job), from `outside`.
 */
export class AuditLog {
  /** Where events recorded outside a request come from: `cli` in an admin command, `system` otherwise. */
  outside: AuditVia = 'system';

  constructor(
    private readonly database: Database,
    private readonly scene: () => AuditScene | undefined,
    private readonly counted: (group: string) => void = () => undefined,
  ) {}

  /** Records one event; `db` is the transaction of the change it records, when there is one. */
  async record(entry: AuditEntry, db: Queryable = this.database.db): Promise<void> {
    const scene = this.scene();
    const sceneActor = scene?.actor() ?? (scene && entry.newcomer ? entry.newcomer : null);
    const actorUserId = entry.actorUserId !== undefined ? entry.actorUserId : (sceneActor?.userId ?? null);
    const knownEmail = entry.actorEmail ?? (sceneActor && sceneActor.userId === actorUserId ? sceneActor.email : null);
    await db
      .insertInto('auditEvents')
      .values(({ selectFrom }) => ({
        id: newId(),
        at: Date.now(),
        workspaceId: entry.workspaceId ?? null,
        actorUserId,
        actorEmail: knownEmail ?? (actorUserId === null ? null : selectFrom('users').select('email').where('id', '=', actorUserId)),
        via: scene?.via ?? this.outside,
        ip: scene?.ip ?? null,
        userAgent: scene?.userAgent ? cutText(scene.userAgent, AUDIT_USER_AGENT_MAX) : null,
        action: entry.action,
        targetKind: entry.target?.kind ?? null,
        targetId: entry.target?.id ?? null,
        targetName: entry.target?.name ? cutText(entry.target.name, AUDIT_NAME_MAX) : null,
        details: entry.details && Object.keys(entry.details).length > 0 ? JSON.stringify(entry.details) : null,
      }))
      .execute();
    this.counted(auditGroupOf(entry.action));
  }

  /** A page of events, newest first: one workspace's, or (null) the whole installation's. */
  async list(workspaceId: string | null, filter: AuditFilter, page: PageRequest): Promise<Page<AuditEvent>> {
    let query = this.database.db
      .selectFrom('auditEvents')
      .leftJoin('workspaces', 'workspaces.id', 'auditEvents.workspaceId')
      .selectAll('auditEvents')
      .select('workspaces.name as workspaceName');
    if (workspaceId !== null) query = query.where('auditEvents.workspaceId', '=', workspaceId);
    // exactly the group's actions on both dialects: LIKE reads `_` as a wildcard, and a range of text depends on PostgreSQL's collation
    const prefix = filter.group ? `${filter.group}.` : null;
    if (prefix) query = query.where(sql<string>`substr(${sql.ref('auditEvents.action')}, 1, ${prefix.length})`, '=', prefix);
    if (filter.actorEmail) query = query.where('auditEvents.actorEmail', '=', filter.actorEmail);
    if (filter.from !== undefined) query = query.where('auditEvents.at', '>=', filter.from);
    if (filter.to !== undefined) query = query.where('auditEvents.at', '<', filter.to);
    const after = page.after;
    if (after) query = query.where((eb) => eb(eb.refTuple('auditEvents.at', 'auditEvents.id'), '<', eb.tuple(after.createdAt, after.id)));
    const rows = await query
      .orderBy('auditEvents.at', 'desc')
      .orderBy('auditEvents.id', 'desc')
      .limit(page.limit + 1)
      .execute();
    const hasMore = rows.length > page.limit;
    if (hasMore) rows.pop();
    return { rows: rows.map((row) => ({ ...row, at: Number(row.at), createdAt: Number(row.at) })), hasMore };
  }

  /** Deletes up to `batch` of the oldest events recorded before `before`, in one short statement; returns how many went. */
  async purge(before: number, batch: number): Promise<number> {
    const oldest = this.database.db.selectFrom('auditEvents').select('id').where('at', '<', before).orderBy('at').orderBy('id').limit(batch);
    // NOTE: on PostgreSQL, `id IN (subquery with LIMIT)` may run the subquery again per row (jobs/finished-jobs.ts); `= ANY(ARRAY(…))` runs it once
    const ids = this.database.dialect === 'postgres' ? sql<string>`ANY(ARRAY(${oldest.forUpdate().skipLocked()}))` : null;
    const result = await this.database.db
      .deleteFrom('auditEvents')
      .where((eb) => (ids ? eb('id', '=', ids) : eb('id', 'in', oldest)))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

/** The AuditEvent resource of the API (schemas/audit-event.ts). */
export function toAuditEventResource(event: AuditEvent) {
  return {
    id: event.id,
    createdAt: new Date(event.at).toISOString(),
    action: event.action,
    group: auditGroupOf(event.action),
    workspaceId: event.workspaceId,
    actorUserId: event.actorUserId,
    actorEmail: event.actorEmail,
    via: event.via,
    ip: event.ip,
    userAgent: event.userAgent,
    target: event.targetKind !== null && event.targetId !== null ? { kind: event.targetKind, id: event.targetId, name: event.targetName } : null,
    details: event.details === null ? null : (JSON.parse(event.details) as Record<string, unknown>),
  };
}
