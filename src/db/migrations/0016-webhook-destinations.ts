import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import type { Migration } from './index.js';

/**
 * The pending webhooks by destination (a receiver's origin), for the claim's per-destination limit
 * (jobs/claim-query.ts): it steps from one destination to the next and reads each one's oldest due
 * jobs, so a receiver with thousands of webhooks due costs the claim one seek, not a read of them
 * all. jobs_due keeps the other lanes only: read for webhooks, it would lead the planners (both of
 * them, found by EXPLAIN) through one receiver's backlog to reach another's jobs. Each pending job
 * is in exactly one of the two. Every webhook that may still be sent has a destination
 * (0011-delivery-lanes).
 */
export const webhookDestinations: Migration = {
  async up(db: Kysely<any>, _dialect: Dialect) {
    await sql`DROP INDEX jobs_due`.execute(db);
    await sql`CREATE INDEX jobs_due ON jobs (lane, run_at) WHERE status = 'pending' AND lane != 'webhook'`.execute(db);
    await sql`CREATE INDEX jobs_due_webhooks ON jobs (destination, run_at) WHERE status = 'pending' AND lane = 'webhook'`.execute(db);
  },
};
