import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import type { Migration } from './index.js';

/**
 * Deliveries by lane and destination, and the try under way. `lane` (email, webhook, slack) gives
 * each channel its own capacity in a worker, so a slow webhook receiver no longer holds up email;
 * `destination` (the SMTP server, Slack, a webhook's origin) lets the first success to a destination
 * bring its backed-off jobs forward; `try_started_at` records a try before it is sent, so that a try
 * cut off by a crash shows in the delivery log. The claim reads due jobs per lane, and the bring-
 * forward reads a destination's jobs that failed, each from a partial index of just those rows.
 */
export const deliveryLanes: Migration = {
  async up(db: Kysely<any>, _dialect: Dialect) {
    await db.schema
      .alterTable('jobs')
      .addColumn('lane', 'text', (c) => c.notNull().defaultTo('email'))
      .execute();
    await db.schema.alterTable('jobs').addColumn('destination', 'text').execute();
    await db.schema.alterTable('jobs').addColumn('try_started_at', 'bigint').execute();
    // As jobs/lanes.ts says at the time of writing (a migration never changes with the code).
    // Jobs done keep no destination: it only matters to jobs that may still be sent.
    await sql`UPDATE jobs SET lane = kind WHERE kind IN ('webhook', 'slack')`.execute(db);
    await sql`UPDATE jobs SET destination = CASE lane WHEN 'email' THEN 'smtp' ELSE 'slack' END WHERE status != 'done' AND lane != 'webhook'`.execute(db);
    const webhooks = await db.selectFrom('jobs').select(['id', 'payload']).where('status', '!=', 'done').where('lane', '=', 'webhook').execute();
    for (const job of webhooks) {
      const payload = (typeof job.payload === 'string' ? JSON.parse(job.payload) : job.payload) as { url?: unknown } | null;
      await db
        .updateTable('jobs')
        .set({ destination: originOf(payload?.url) })
        .where('id', '=', job.id)
        .execute();
    }
    await db.schema.dropIndex('jobs_status_run_at').execute();
    await sql`CREATE INDEX jobs_due ON jobs (lane, run_at) WHERE status = 'pending'`.execute(db);
    await sql`CREATE INDEX jobs_backed_off ON jobs (destination, run_at) WHERE status = 'pending' AND last_error IS NOT NULL`.execute(db);
  },
};

function originOf(url: unknown): string {
  try {
    const origin = new URL(String(url)).origin;
    return origin === 'null' ? 'webhook' : origin;
  } catch {
    return 'webhook';
  }
}
