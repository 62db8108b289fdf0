import type { Redis } from 'ioredis';
import type { Database } from '../db/database.js';
import type { Backlog, BacklogReading } from '../jobs/backlog.js';
import type { DeliverySwitch } from '../jobs/delivery-switch.js';
import type { MailCheck, MailHealth } from '../mail/mail-health.js';
import type { FilesCheck, FilesHealth } from './files-health.js';
import { VERSION } from '../version.js';

/** A due delivery waiting longer than this makes the instance `degraded` (`backlog_old`). */
export const BACKLOG_DEGRADED_AFTER_SECONDS = 5 * 60;
/** How long one Redis answer serves every health check. */
const REDIS_CACHE_MS = 1_000;

type Status = 'ok' | 'degraded' | 'failing';

export interface Check {
  status: Status;
  /** A machine-readable code when the status is not ok (docs/operations.md lists them). */
  reason?: string;
  [detail: string]: unknown;
}

export interface Health {
  /** 503 when this instance cannot serve (its database does not answer) or is stopping; 200 otherwise. */
  httpStatus: 200 | 503;
  body:
    | {
        status: Status;
        version: string;
        checks: { database: Check; smtp: MailCheck; redis?: Check; deliveries: Check; files?: FilesCheck };
      }
    | { status: 'stopping'; version: string };
}

/** `/healthz` as anyone may read it: the overall status, and each check's status and reason code. */
export interface PublicHealth {
  httpStatus: Health['httpStatus'];
  body: { status: Status; checks: Record<string, Pick<Check, 'status' | 'reason'>> } | { status: 'stopping' };
}

/** The public form of an answer: the same HTTP status and states, none of the details. */
export function publicHealth(health: Health): PublicHealth {
  // a stopping instance checks nothing: its status is all there is to say
  if (!('checks' in health.body)) return { httpStatus: health.httpStatus, body: { status: health.body.status } };
  const checks: Record<string, Pick<Check, 'status' | 'reason'>> = {};
  for (const [name, check] of Object.entries(health.body.checks) as [string, Check][]) {
    checks[name] = check.reason === undefined ? { status: check.status } : { status: check.status, reason: check.reason };
  }
  return { httpStatus: health.httpStatus, body: { status: health.body.status, checks } };
}

/**
 * What `/healthz` says on both surfaces. Only a database that does not answer takes the instance
 * out (503, `failing`): every other fault (SMTP refusing, Redis away, writes failing for want of
 * disk, an old backlog) is shared by every instance, so a load balancer dropping this one would
 * not help; they say `degraded` with 200. So does a file store that cannot be reached.
 */
export class HealthService {
  private redisAnswer: { ok: boolean; at: number } | null = null;
  private redisAsking: Promise<boolean> | null = null;
  private stopping = false;

  constructor(
    private readonly database: Database,
    private readonly mail: MailHealth,
    private readonly backlog: Backlog,
    private readonly redis: Redis | null,
    private readonly deliverySwitch: DeliverySwitch | null = null,
    private readonly files: FilesHealth | null = null,
  ) {}

  /** From now on `/healthz` answers 503 `stopping`, at once: load balancers stop choosing this instance while it still serves (src/cli/serve.ts). */
  markStopping(): void {
    this.stopping = true;
  }

  /** Whether the instance is stopping (`/metrics` says it too). */
  isStopping(): boolean {
    return this.stopping;
  }

  /** Every check, the overall status and the HTTP status a load balancer acts on. */
  async health(): Promise<Health> {
    // NOTE: before any check: the answer must not wait on a database or Redis that is slow to answer
    if (this.stopping) return { httpStatus: 503, body: { status: 'stopping', version: VERSION } };
    const [database, deliveries, redis, files] = await Promise.all([this.databaseCheck(), this.deliveriesCheck(), this.redisCheck(), this.files?.check()]);
    const checks = { database, smtp: this.mail.check(), ...(redis ? { redis } : {}), deliveries, ...(files ? { files } : {}) };
    const statuses = Object.values(checks).map((check) => check.status);
    const status: Status = statuses.includes('failing') ? 'failing' : statuses.includes('degraded') ? 'degraded' : 'ok';
    return { httpStatus: status === 'failing' ? 503 : 200, body: { status, version: VERSION, checks } };
  }

  /**
   * What `/healthz` answers a client: every detail to the operator (`detailed`: a loopback client or
   * the metrics token, web/health-detail.ts), else only the overall status and each check's status
   * and reason: no path, endpoint, version or error text for strangers (issue 38, item 15).
   */
  async answer(detailed: boolean): Promise<Health | PublicHealth> {
    const health = await this.health();
    return detailed ? health : publicHealth(health);
  }

  /** The backlog as last read (cached): `/metrics` shares it. */
  readBacklog(): Promise<BacklogReading> {
    return this.backlog.read();
  }

  private async databaseCheck(): Promise<Check> {
    // NOTE: said, not judged: while the change feed reconnects every request reads its form or token, correctly
    const feed = this.database.changeFeedState();
    const changeFeed = feed === null ? {} : { changeFeed: feed };
    if (!(await this.database.ping())) return { status: 'failing', reason: 'database_unreachable', reads: 'failing', writes: 'unknown', ...changeFeed };
    // a write failed for want of storage in the last few seconds (its disk full): reads are served, each write answers 503
    if (this.database.writesFailing) return { status: 'degraded', reason: 'database_writes_failing', reads: 'ok', writes: 'failing', ...changeFeed };
    return { status: 'ok', reads: 'ok', writes: 'ok', ...changeFeed };
  }

  private async deliveriesCheck(): Promise<Check> {
    let reading: BacklogReading;
    const switchState = this.deliverySwitch?.read();
    try {
      reading = await this.backlog.read();
    } catch {
      return { status: 'degraded', reason: 'backlog_unreadable' };
    }
    const due = Object.fromEntries(Object.entries(reading.lanes).map(([lane, { due }]) => [lane, due]));
    const check = { oldestDueAgeSeconds: reading.oldestDueAgeSeconds, due, degradedAfterSeconds: BACKLOG_DEGRADED_AFTER_SECONDS };
    // NOTE: paused holds every instance alike: degraded (200), never 503, or a load balancer would drop them all
    const state = await switchState;
    if (state?.paused)
      return {
        status: 'degraded',
        reason: 'paused',
        pausedBy: state.source === 'environment' ? 'FORMGATE_DELIVERIES' : state.pause?.by,
        pausedAt: state.pause?.at ?? null,
        ...check,
      };
    if (reading.oldestDueAgeSeconds > BACKLOG_DEGRADED_AFTER_SECONDS) return { status: 'degraded', reason: 'backlog_old', ...check };
    return { status: 'ok', ...check };
  }

  private async redisCheck(): Promise<Check | null> {
    if (!this.redis) return null;
    const ok = await this.redisAnswers();
    // NOTE: without Redis each instance counts rate limits in its own process: served, but limits are per instance
    return ok ? { status: 'ok' } : { status: 'degraded', reason: 'redis_unreachable', fallback: 'rate limits count in each instance' };
  }

  private async redisAnswers(): Promise<boolean> {
    const now = Date.now();
    if (this.redisAnswer && now - this.redisAnswer.at < REDIS_CACHE_MS) return this.redisAnswer.ok;
    const redis = this.redis!;
    // not ready (reconnecting): asking would wait in its offline queue for the command timeout
    if (redis.status !== 'ready') return this.noteRedis(false, now);
    this.redisAsking ??= redis
      .ping()
      .then(
        () => this.noteRedis(true, Date.now()),
        () => this.noteRedis(false, Date.now()),
      )
      .finally(() => (this.redisAsking = null));
    return this.redisAsking;
  }

  private noteRedis(ok: boolean, at: number): boolean {
    this.redisAnswer = { ok, at };
    return ok;
  }
}
