import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import type { Migration } from './index.js';

/**
 * What a successful try got back (issue 25): the receiver's answer (the SMTP server's `250 … queued
 * as …` line) and, for an email written to the outbox folder because no SMTP server is configured,
 * the file it went to, so that such an email is not shown as "Delivered".
 */
export const attemptAnswers: Migration = {
  async up(db: Kysely<any>, _dialect: Dialect) {
    await db.schema.alterTable('job_attempts').addColumn('response', 'text').execute();
    await db.schema.alterTable('job_attempts').addColumn('written_to', 'text').execute();
  },
};
