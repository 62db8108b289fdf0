import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import type { Migration } from './index.js';

/**
 * Two-factor sign-in, passkeys and the sessions page (issue 43, items 1, 2 and 5):
 * - `users.totp_secret`: the authenticator app's secret, sealed with a key derived from the
 *   installation's secret (services/sealed-values.ts); null: no app. `totp_last_step`: the time step
 *   of the last code accepted, so no code is accepted twice. `second_factor_at`: when the account got
 *   its first second factor (an app or a passkey); null: it has none.
 * - `recovery_codes`: ten single-use codes per account, their SHA-256 only.
 * - `passkeys`: WebAuthn credentials, each named; `counter` refuses a cloned authenticator.
 * - `remembered_browsers`: a browser that asked to skip the second factor for 30 days (its cookie's
 *   SHA-256); they all go when the person turns two factors off or forgets them.
 * - `sessions.user_agent`, `sessions.ip`: what the sessions page shows; `sessions.second_factor_at`:
 *   when the session last proved the second factor (making a token asks for a recent one).
 * - `workspaces.require_two_factor`: an owner requires a second factor of every member.
 */
export const twoFactor: Migration = {
  async up(db: Kysely<any>, _dialect: Dialect) {
    await db.schema.alterTable('users').addColumn('totp_secret', 'text').execute();
    await db.schema.alterTable('users').addColumn('totp_last_step', 'bigint').execute();
    await db.schema.alterTable('users').addColumn('second_factor_at', 'bigint').execute();
    await db.schema
      .createTable('recovery_codes')
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('code_hash', 'text', (c) => c.notNull())
      .addColumn('used_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('recovery_codes_pk', ['user_id', 'code_hash'])
      .execute();
    await db.schema
      .createTable('passkeys')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('public_key', 'text', (c) => c.notNull())
      .addColumn('counter', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('transports', 'text')
      .addColumn('backed_up', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('last_used_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await sql`CREATE INDEX passkeys_user ON passkeys (user_id, created_at)`.execute(db);
    await db.schema
      .createTable('remembered_browsers')
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await sql`CREATE INDEX remembered_browsers_user ON remembered_browsers (user_id)`.execute(db);
    await db.schema.alterTable('sessions').addColumn('user_agent', 'text').execute();
    await db.schema.alterTable('sessions').addColumn('ip', 'text').execute();
    await db.schema.alterTable('sessions').addColumn('second_factor_at', 'bigint').execute();
    await db.schema
      .alterTable('workspaces')
      .addColumn('require_two_factor', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
};
