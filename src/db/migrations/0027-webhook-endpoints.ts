import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import type { Migration } from './index.js';

/**
 * Webhooks as Standard Webhooks recommends (issue 39, items 2 and 3):
 * - `jobs.not_before`: the time a receiver's `Retry-After` asked for; a success elsewhere at the same
 *   destination does not bring such a job forward before it.
 * - `forms.webhook_disabled_at` and `webhook_disabled_reason`: the form's webhook turned off because
 *   its receiver answered `410 Gone`; saving the webhook settings turns it on again.
 * - `job_attempts.target`: where a try went (the webhook's URL, read from the form when it is sent),
 *   so the delivery log says which address a retry used.
 */
export const webhookEndpoints: Migration = {
  async up(db: Kysely<any>, _dialect: Dialect) {
    await db.schema.alterTable('jobs').addColumn('not_before', 'bigint').execute();
    await db.schema.alterTable('forms').addColumn('webhook_disabled_at', 'bigint').execute();
    await db.schema.alterTable('forms').addColumn('webhook_disabled_reason', 'text').execute();
    await db.schema.alterTable('job_attempts').addColumn('target', 'text').execute();
  },
};
