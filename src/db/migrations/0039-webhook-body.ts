import type { Kysely } from 'kysely';
import type { Migration } from './index.js';

/**
 * A form's webhook body (issue 42, item 5; domain/webhook-body.ts): its format (null: `json`, the
 * fields as one flat JSON object, as before) and, for `json-template` and `urlencoded-template`, the
 * template it is written with (at most WEBHOOK_BODY_TEMPLATE_MAX characters). Read with the form's
 * webhook at each try (jobs/webhook-endpoints.ts), so a change applies to webhooks already waiting.
 */
export const webhookBody: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('forms').addColumn('webhook_body_format', 'text').execute();
    await db.schema.alterTable('forms').addColumn('webhook_body_template', 'text').execute();
  },
};
