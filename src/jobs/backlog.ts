import { sql } from 'kysely';
import type { Database } from '../db/database.js';
import { LANES, type Lane } from './lanes.js';

/** Due jobs of a lane are counted up to this many: past it, `due` says this many and `capped` is set. */
export const BACKLOG_COUNT_CAP = 10_000;
/** How long one reading serves every health check and scrape: a poll storm costs the database one query a second or so. */
export const BACKLOG_CACHE_MS = 2_000;

export interface LaneBacklog {
  /** Jobs due (their time has come) and not yet delivered, up to BACKLOG_COUNT_CAP. */
  due: number;
  capped: boolean;
  /** Epoch ms of the oldest due job's due time; null when none is due. */
  oldestDueAt: number | null;
}

export interface BacklogReading {
  lanes: Record<Lane, LaneBacklog>;
  /** When it was read. */
  at: number;
  /** Seconds since the oldest due job of any lane fell due; 0 when none is. */
  oldestDueAgeSeconds: number;
}

/**
 * The delivery backlog: how many jobs are due in each lane and how long the oldest has waited, for
 * `/healthz` and `/metrics`. Read at most once per BACKLOG_CACHE_MS, concurrent askers sharing it.
 */
export class Backlog {
  private cached: BacklogReading | null = null;
  private reading: Promise<BacklogReading> | null = null;

  constructor(
    private readonly database: Database,
    private readonly options: { cacheMs?: number; now?: () => number } = {},
  ) {}

  /** The latest reading, read again when it is older than the cache time. */
  async read(): Promise<BacklogReading> {
    const now = (this.options.now ?? Date.now)();
    if (this.cached && now - this.cached.at < (this.options.cacheMs ?? BACKLOG_CACHE_MS)) return this.cached;
    this.reading ??= this.query(now).finally(() => (this.reading = null));
    return this.reading;
  }

  private async query(now: number): Promise<BacklogReading> {
    // NOTE: one capped subquery per lane, each an ordered range of the partial index jobs_due
    // (lane, run_at) WHERE status = 'pending': the literals let both dialects use it, and the cap
    // keeps a backlog of a million jobs from being counted one by one every few seconds.
    const parts = LANES.map(
      (lane) => sql`select ${sql.lit(lane)} as lane, count(*) as due, min(run_at) as oldest from (
        select run_at from jobs where status = 'pending' and lane = ${sql.lit(lane)} and run_at <= ${now} order by run_at limit ${BACKLOG_COUNT_CAP}
      ) as due_${sql.raw(lane)}`,
    );
    const { rows } = await sql<{ lane: Lane; due: number | string; oldest: number | string | null }>`${sql.join(parts, sql` union all `)}`.execute(
      this.database.db,
    );
    const lanes = Object.fromEntries(LANES.map((lane) => [lane, { due: 0, capped: false, oldestDueAt: null }])) as Record<Lane, LaneBacklog>;
    let oldest = now;
    for (const row of rows) {
      const due = Number(row.due);
      const oldestDueAt = row.oldest === null ? null : Number(row.oldest);
      lanes[row.lane] = { due, capped: due >= BACKLOG_COUNT_CAP, oldestDueAt };
      if (oldestDueAt !== null) oldest = Math.min(oldest, oldestDueAt);
    }
    this.cached = { lanes, at: now, oldestDueAgeSeconds: Math.max(0, Math.round((now - oldest) / 1000)) };
    return this.cached;
  }
}
