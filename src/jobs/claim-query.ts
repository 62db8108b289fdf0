import { sql, type Compilable, type RawBuilder } from 'kysely';
import type { Database, Queryable } from '../db/database.js';
import { PreparedQuery } from '../db/prepared-query.js';
import type { JobRow } from '../db/schema/job.js';
import { newId } from '../ids.js';
import { LANES, type Lane } from './lanes.js';

/** How many jobs of each lane a claim may take (a lane left out takes none). */
export type LaneLimits = Partial<Record<Lane, number>>;

// named, not `*`: see PreparedQuery
const CLAIMED_COLUMNS = [
  'id',
  'kind',
  'payload',
  'attempts',
  'runAt',
  'submissionId',
  'idempotencyKey',
  'lane',
  'destination',
] as const satisfies readonly (keyof JobRow)[];
export type ClaimedRow = Pick<JobRow, (typeof CLAIMED_COLUMNS)[number]>;

/** What the delivery log says of a try whose worker stopped before it ended. */
export const CUT_OFF_ERROR = 'cut off: the worker stopped (crashed, was killed or lost the database) before this try ended; the receiver may have got it';

type ClaimParams = { now: number; leaseUntil: number } & Record<Lane, number>;

/**
 * Leases the due jobs of each lane, up to that lane's limit, so that a lane whose jobs are slow
 * (a webhook receiver taking seconds) never takes the slots of another. A job still marked as
 * being tried (`try_started_at`) whose lease ran out was cut off: its try goes into the delivery
 * log as `interrupted`, in the same claim. Marks each claimed job's try as started.
 */
export interface ClaimQuery {
  run(limits: LaneLimits, now: number, leaseUntil: number): Promise<ClaimedRow[]>;
}

/** The claim of `database`'s dialect. */
export function claimQuery(database: Database): ClaimQuery {
  return database.dialect === 'postgres' ? new PostgresClaim(database) : new SqliteClaim(database);
}

const laneParams = (limits: LaneLimits) => Object.fromEntries(LANES.map((lane) => [lane, limits[lane] ?? 0])) as Record<Lane, number>;

// The jobs of one lane that are due and that no worker holds; the literals let the partial index jobs_due serve it.
function dueInLane(lane: RawBuilder<unknown>, p: { now: number }) {
  return sql`SELECT id, attempts, try_started_at, lease_until FROM jobs
    WHERE status = 'pending' AND lane = ${lane} AND run_at <= ${p.now} AND (lease_until IS NULL OR lease_until < ${p.now})
    ORDER BY run_at`;
}

const compiled = <Row>(db: Queryable, query: RawBuilder<Row>): Compilable<Row> => ({ compile: () => query.compile(db) });

/**
 * PostgreSQL: one statement, atomic without a transaction (one round trip). Rows another instance
 * is claiming right now are skipped, not waited for (FOR UPDATE SKIP LOCKED), so two instances
 * never hold the same job and never block each other.
 */
class PostgresClaim implements ClaimQuery {
  private readonly query = new PreparedQuery<ClaimParams, ClaimedRow>((db, p) => {
    const lanes = sql.join(LANES.map((lane) => sql`(${sql.lit(lane)}, CAST(${p[lane]} AS integer))`));
    return compiled(
      db,
      sql<ClaimedRow>`WITH due AS (
          SELECT j.id, j.try_started_at AS cut_off_started_at, j.lease_until AS cut_off_at
          FROM (VALUES ${lanes}) AS lanes (lane, n)
          CROSS JOIN LATERAL (${dueInLane(sql`lanes.lane`, p)} LIMIT lanes.n FOR UPDATE SKIP LOCKED) j
        ), claimed AS (
          UPDATE jobs SET lease_until = ${p.leaseUntil}, attempts = jobs.attempts + 1, try_started_at = ${p.now}, updated_at = ${p.now}
          FROM due WHERE jobs.id = due.id
          RETURNING ${sql.join(CLAIMED_COLUMNS.map((c) => sql.ref(`jobs.${snake(c)}`)))}, due.cut_off_started_at, due.cut_off_at
        ), cut_off AS (
          INSERT INTO job_attempts (id, job_id, started_at, finished_at, outcome, error)
          SELECT md5(random()::text || claimed.id), claimed.id, claimed.cut_off_started_at, COALESCE(claimed.cut_off_at, ${p.now}),
            'interrupted', ${CUT_OFF_ERROR}
          FROM claimed WHERE claimed.cut_off_started_at IS NOT NULL
        )
        SELECT ${sql.join(CLAIMED_COLUMNS.map((c) => sql.ref(snake(c))))} FROM claimed`,
    );
  });

  constructor(private readonly database: Database) {}

  run(limits: LaneLimits, now: number, leaseUntil: number): Promise<ClaimedRow[]> {
    return this.query.execute(this.database.db, { now, leaseUntil, ...laneParams(limits) });
  }
}

type DueRow = { id: string; attempts: number; tryStartedAt: number | null; leaseUntil: number | null };

/**
 * SQLite: the due jobs are read, then leased by id with the due condition checked again, so a job
 * another process took in between is left to it (one process is the rule, but a CLI may share the
 * file). Recording a cut-off try rides in the lease's transaction; otherwise the lease is one
 * statement. Without the fsync: a claim lost in a power cut is harmless.
 */
class SqliteClaim implements ClaimQuery {
  private readonly due = new PreparedQuery<ClaimParams, DueRow>((db, p) =>
    compiled(
      db,
      sql<DueRow>`${sql.join(
        LANES.map((lane) => sql`SELECT * FROM (${dueInLane(sql.lit(lane), p)} LIMIT ${p[lane]})`),
        sql` UNION ALL `,
      )}`,
    ),
  );

  private readonly lease = new PreparedQuery<{ ids: string; now: number; leaseUntil: number }, ClaimedRow>((db, p) =>
    db
      .updateTable('jobs')
      .set((eb) => ({ leaseUntil: p.leaseUntil, attempts: eb('attempts', '+', 1), tryStartedAt: p.now, updatedAt: p.now }))
      .where('id', 'in', sql<string>`(SELECT value FROM json_each(${p.ids}))`)
      .where('status', '=', 'pending')
      .where('runAt', '<=', p.now)
      .where((eb) => eb.or([eb('leaseUntil', 'is', null), eb('leaseUntil', '<', p.now)]))
      .returning(CLAIMED_COLUMNS),
  );

  constructor(private readonly database: Database) {}

  async run(limits: LaneLimits, now: number, leaseUntil: number): Promise<ClaimedRow[]> {
    return this.database.withoutFsync(async (db) => {
      const due = await this.due.execute(db, { now, leaseUntil, ...laneParams(limits) });
      if (due.length === 0) return [];
      const params = { ids: JSON.stringify(due.map((row) => row.id)), now, leaseUntil };
      const cutOff = due.filter((row) => row.tryStartedAt !== null);
      if (cutOff.length === 0) return this.lease.execute(db, params);
      return db.transaction().execute(async (trx) => {
        const claimed = await this.lease.execute(trx, params);
        // only the tries this claim took over: attempts grew by exactly one
        const taken = new Map(claimed.map((row) => [row.id, row.attempts]));
        const rows = cutOff
          .filter((row) => taken.get(row.id) === row.attempts + 1)
          .map((row) => {
            const finishedAt = row.leaseUntil ?? now;
            return { id: newId(), jobId: row.id, startedAt: row.tryStartedAt!, finishedAt, outcome: 'interrupted' as const, error: CUT_OFF_ERROR };
          });
        if (rows.length > 0) await trx.insertInto('jobAttempts').values(rows).execute();
        return claimed;
      });
    });
  }
}

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
