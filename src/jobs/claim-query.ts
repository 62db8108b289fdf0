import { sql, type Compilable, type RawBuilder } from 'kysely';
import type { Database, Queryable } from '../db/database.js';
import { PreparedQuery } from '../db/prepared-query.js';
import type { JobRow } from '../db/schema/job.js';
import { newId } from '../ids.js';
import { DESTINATION_LIMIT, FAST_DESTINATION_LIMIT, LANES, type Lane } from './lanes.js';

/** How many jobs of each lane a claim may take (a lane left out takes none). */
export type LaneLimits = Partial<Record<Lane, number>>;

/** How many more webhooks of each destination a claim may take; a destination left out, DESTINATION_LIMIT. */
export type DestinationAllowance = Readonly<Record<string, number>>;

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

type ClaimParams = { now: number; leaseUntil: number; allowance: string } & Record<Lane, number>;

/**
 * Leases the due jobs of each lane, up to that lane's limit, so that a lane whose jobs are slow
 * (a webhook receiver taking seconds) never takes the slots of another; and in the webhook lane no
 * more of one destination than `allowance` says (the worker counts its webhooks in flight there),
 * so that a receiver that hangs never takes the slots of every other receiver. A job still marked as
 * being tried (`try_started_at`) whose lease ran out was cut off: its try goes into the delivery
 * log as `interrupted`, in the same claim. Marks each claimed job's try as started.
 */
export interface ClaimQuery {
  run(limits: LaneLimits, allowance: DestinationAllowance, now: number, leaseUntil: number): Promise<ClaimedRow[]>;
}

/** The claim of `database`'s dialect. */
export function claimQuery(database: Database): ClaimQuery {
  return database.dialect === 'postgres' ? new PostgresClaim(database) : new SqliteClaim(database);
}

const claimParams = (limits: LaneLimits, allowance: DestinationAllowance, now: number, leaseUntil: number): ClaimParams => ({
  now,
  leaseUntil,
  allowance: JSON.stringify(allowance),
  ...(Object.fromEntries(LANES.map((lane) => [lane, limits[lane] ?? 0])) as Record<Lane, number>),
});

// Every lane but webhooks has one destination (the SMTP server, Slack): the lane's limit is its limit.
const ONE_DESTINATION_LANES = LANES.filter((lane) => lane !== 'webhook');

// Due and held by no worker (the literals let the partial indexes serve it).
const isDue = (p: { now: number }, alias = sql`jobs`) =>
  sql`${alias}.status = 'pending' AND ${alias}.run_at <= ${p.now} AND (${alias}.lease_until IS NULL OR ${alias}.lease_until < ${p.now})`;

// The jobs of one lane (not webhooks) that are due and that no worker holds, oldest first, from the partial index jobs_due.
function dueInLane(lane: RawBuilder<unknown>, p: { now: number }) {
  return sql`SELECT id, attempts, try_started_at, lease_until FROM jobs WHERE lane = ${lane} AND lane != 'webhook' AND ${isDue(p)} ORDER BY run_at`;
}

/**
 * `destinations`: each destination with pending webhooks, one seek of jobs_due_webhooks apiece (a
 * loose index scan): a destination's backlog is stepped over, never read. None when the claim takes
 * no webhooks. `allowance`: how many more of a destination the claim may take, where the caller said.
 */
function webhookDestinations(p: { webhook: number; allowance: string }, dialect: 'postgres' | 'sqlite') {
  const allowance =
    dialect === 'postgres'
      ? sql`SELECT key, CAST(value AS integer) FROM json_each_text(CAST(${p.allowance} AS json))`
      : sql`SELECT key, value FROM json_each(${p.allowance})`;
  return sql`destinations (destination) AS (
      SELECT (SELECT destination FROM jobs WHERE status = 'pending' AND lane = 'webhook' ORDER BY destination LIMIT 1)
      WHERE CAST(${p.webhook} AS integer) > 0
      UNION ALL
      SELECT (SELECT j.destination FROM jobs j WHERE j.status = 'pending' AND j.lane = 'webhook' AND j.destination > d.destination ORDER BY j.destination LIMIT 1)
      FROM destinations d WHERE d.destination IS NOT NULL
    ), allowance (destination, n) AS (${allowance})`;
}

// The due webhooks to `destination`, oldest first, from jobs_due_webhooks (as `w`: the query around names jobs too).
function dueAt(destination: RawBuilder<unknown>, p: { now: number }, columns: RawBuilder<unknown>) {
  return sql`SELECT ${columns} FROM jobs w WHERE w.lane = 'webhook' AND w.destination = ${destination} AND ${isDue(p, sql`w`)}
    ORDER BY w.run_at`;
}

// What a destination the caller did not name may take, and the most any may.
const PER_DESTINATION = sql.lit(DESTINATION_LIMIT);
const PER_DESTINATION_AT_MOST = sql.lit(FAST_DESTINATION_LIMIT);

const compiled = <Row>(db: Queryable, query: RawBuilder<Row>): Compilable<Row> => ({ compile: () => query.compile(db) });

/**
 * PostgreSQL: one statement, atomic without a transaction (one round trip). Rows another instance
 * is claiming right now are skipped, not waited for (FOR UPDATE SKIP LOCKED), so two instances
 * never hold the same job and never block each other.
 */
class PostgresClaim implements ClaimQuery {
  private readonly query = new PreparedQuery<ClaimParams, ClaimedRow>((db, p) => {
    const lanes = sql.join(ONE_DESTINATION_LANES.map((lane) => sql`(${sql.lit(lane)}, CAST(${p[lane]} AS integer))`));
    // NOTE: the claimed rows are updated by their keys (`= ANY (ARRAY(…))`): joined to `due`, the
    // planner expected thousands (the lanes' limits are parameters) and read the whole table to hash
    // it, 1.5 ms of each claim at 10,000 jobs.
    // NOTE: the webhooks wanted are chosen first and locked after: FOR UPDATE cannot sit under the
    // ORDER BY … LIMIT across destinations, and locking each destination's candidates would write
    // a lock into rows this claim does not take. `= ANY (ARRAY(…))` looks each one up by its key:
    // with `IN (…)` the planner read the whole table to join it.
    return compiled(
      db,
      sql<ClaimedRow>`WITH RECURSIVE ${webhookDestinations(p, 'postgres')}, webhooks_wanted AS (
          SELECT j.id FROM destinations d
          LEFT JOIN allowance ON allowance.destination = d.destination
          CROSS JOIN LATERAL (${dueAt(sql`d.destination`, p, sql`w.id, w.run_at`)} LIMIT GREATEST(0, COALESCE(allowance.n, ${PER_DESTINATION}))) j
          WHERE d.destination IS NOT NULL
          ORDER BY j.run_at LIMIT CAST(${p.webhook} AS integer)
        ), due AS (
          SELECT j.id, j.try_started_at AS cut_off_started_at, j.lease_until AS cut_off_at
          FROM (VALUES ${lanes}) AS lanes (lane, n)
          CROSS JOIN LATERAL (${dueInLane(sql`lanes.lane`, p)} LIMIT lanes.n FOR UPDATE SKIP LOCKED) j
          UNION ALL
          SELECT * FROM (
            SELECT id, try_started_at, lease_until FROM jobs WHERE id = ANY (ARRAY(SELECT id FROM webhooks_wanted)) AND ${isDue(p)} FOR UPDATE SKIP LOCKED
          ) webhooks
        ), claimed AS (
          UPDATE jobs SET lease_until = ${p.leaseUntil}, attempts = jobs.attempts + 1, try_started_at = ${p.now}, updated_at = ${p.now}
          WHERE jobs.id = ANY (ARRAY(SELECT id FROM due))
          RETURNING ${sql.join(CLAIMED_COLUMNS.map((c) => sql.ref(`jobs.${snake(c)}`)))}
        ), cut_off AS (
          INSERT INTO job_attempts (id, job_id, started_at, finished_at, outcome, error)
          SELECT md5(random()::text || due.id), due.id, due.cut_off_started_at, COALESCE(due.cut_off_at, ${p.now}),
            'interrupted', ${CUT_OFF_ERROR}
          FROM due WHERE due.cut_off_started_at IS NOT NULL AND due.id IN (SELECT id FROM claimed)
        )
        SELECT ${sql.join(CLAIMED_COLUMNS.map((c) => sql.ref(snake(c))))} FROM claimed`,
    );
  });

  constructor(private readonly database: Database) {}

  run(limits: LaneLimits, allowance: DestinationAllowance, now: number, leaseUntil: number): Promise<ClaimedRow[]> {
    return this.query.execute(this.database.db, claimParams(limits, allowance, now, leaseUntil));
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
  // NOTE: SQLite has no LATERAL and its LIMIT cannot name a column: each destination's candidates
  // are its oldest FAST_DESTINATION_LIMIT, and those past its allowance are dropped after.
  private readonly due = new PreparedQuery<ClaimParams, DueRow>((db, p) =>
    compiled(
      db,
      sql<DueRow>`WITH RECURSIVE ${webhookDestinations(p, 'sqlite')}, candidates AS (
          SELECT j.id, j.attempts, j.try_started_at, j.lease_until, j.run_at, j.destination,
            row_number() OVER (PARTITION BY j.destination ORDER BY j.run_at) AS nth
          FROM destinations d JOIN jobs j ON j.id IN (${dueAt(sql`d.destination`, p, sql`w.id`)} LIMIT ${PER_DESTINATION_AT_MOST})
          WHERE d.destination IS NOT NULL
        )
        ${sql.join(
          ONE_DESTINATION_LANES.map((lane) => sql`SELECT * FROM (${dueInLane(sql.lit(lane), p)} LIMIT ${p[lane]})`),
          sql` UNION ALL `,
        )}
        UNION ALL
        SELECT id, attempts, try_started_at, lease_until FROM (
          SELECT c.* FROM candidates c LEFT JOIN allowance ON allowance.destination = c.destination
          WHERE c.nth <= COALESCE(allowance.n, ${PER_DESTINATION}) ORDER BY c.run_at LIMIT ${p.webhook}
        )`,
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

  async run(limits: LaneLimits, allowance: DestinationAllowance, now: number, leaseUntil: number): Promise<ClaimedRow[]> {
    return this.database.withoutFsync(async (db) => {
      const due = await this.due.execute(db, claimParams(limits, allowance, now, leaseUntil));
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
