import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import type { Migration } from './index.js';

/**
 * The transactional outbox: one row per side effect (an email, later a webhook or a Slack message),
 * written in the transaction of what caused it and claimed by the delivery workers with a lease;
 * and one row per try, so an operator can see why a delivery failed.
 */
export const jobs: Migration = {
  async up(db: Kysely<any>, dialect: Dialect) {
    const json = dialect === 'postgres' ? 'jsonb' : 'text';
    await db.schema
      .createTable('jobs')
      .addColumn('id', 'text', (c) => c.primaryKey().notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('payload', json, (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('run_at', 'bigint', (c) => c.notNull())
      .addColumn('lease_until', 'bigint')
      .addColumn('last_error', 'text')
      // NOTE: SET NULL keeps the delivery log when a submission is deleted; a job for a submission
      // must therefore be enqueued after the submission row is inserted (the check is immediate).
      .addColumn('submission_id', 'text', (c) => c.references('submissions.id').onDelete('set null'))
      // Sent to receivers that deduplicate (the webhook id); the same for every job of one submission.
      .addColumn('idempotency_key', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    // The workers' poll: pending jobs in order of when they are due.
    await db.schema.createIndex('jobs_status_run_at').on('jobs').columns(['status', 'run_at']).execute();
    // Deleting a submission looks its jobs up by this column (the foreign key's SET NULL).
    await db.schema.createIndex('jobs_submission_id').on('jobs').column('submission_id').execute();

    await db.schema
      .createTable('job_attempts')
      .addColumn('id', 'text', (c) => c.primaryKey().notNull())
      .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
      .addColumn('started_at', 'bigint', (c) => c.notNull())
      .addColumn('finished_at', 'bigint', (c) => c.notNull())
      .addColumn('outcome', 'text', (c) => c.notNull())
      .addColumn('status_code', 'integer')
      .addColumn('error', 'text')
      .execute();
    await db.schema.createIndex('job_attempts_job_id').on('job_attempts').columns(['job_id', 'started_at']).execute();
  },
};
