import { sql, type Kysely } from 'kysely';
import type { Migration } from './index.js';

/**
 * Single sign-on with OpenID Connect (issue 43, item 3; services/oidc-accounts.ts): which account
 * a provider's person is, by the provider's issuer and its `sub` (never by the email, which a
 * person can change at the provider). One account may have several (a second issuer, a provider
 * account made again); one `sub` of an issuer is one account. `email` is the address the provider
 * gave when the link was made, for the logs and the admin. The settings live in `settings`
 * (key `oidc`), not here.
 */
export const singleSignOn: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('oidc_links')
      .addColumn('issuer', 'text', (c) => c.notNull())
      .addColumn('subject', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('email', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_sign_in_at', 'bigint')
      .addPrimaryKeyConstraint('oidc_links_pk', ['issuer', 'subject'])
      .execute();
    await sql`CREATE INDEX oidc_links_user ON oidc_links (user_id)`.execute(db);
  },
};
