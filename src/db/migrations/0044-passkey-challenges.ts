import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import type { Migration } from './index.js';

/**
 * Passkeys (issue 43, item 2): `passkey_challenges` holds each WebAuthn challenge answered, until
 * it expires, so that an answer (a signed assertion or a new credential) is taken once by any
 * instance. The challenge itself travels in a signed cookie (dashboard/passkey-ceremony.ts); past
 * `expires_at` it is refused anyway, and the next answer purges the row.
 */
export const passkeyChallenges: Migration = {
  async up(db: Kysely<any>, _dialect: Dialect) {
    await db.schema
      .createTable('passkey_challenges')
      .addColumn('challenge', 'text', (c) => c.primaryKey())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('passkey_challenges_expires').on('passkey_challenges').columns(['expires_at']).execute();
  },
};
