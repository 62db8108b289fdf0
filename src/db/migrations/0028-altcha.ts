import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import type { Migration } from './index.js';

/**
 * ALTCHA, the proof-of-work CAPTCHA Formgate runs itself (issue 40, item 5):
 * `altcha_spent_challenges` holds each challenge answered, by its signature, until it expires, so
 * that an answer is taken once by any instance; past `expires_at` the challenge is refused anyway,
 * and the hourly purge removes its row.
 */
export const altcha: Migration = {
  async up(db: Kysely<any>, _dialect: Dialect) {
    await db.schema
      .createTable('altcha_spent_challenges')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('altcha_spent_challenges_expires').on('altcha_spent_challenges').columns(['expires_at']).execute();
  },
};
