import { sql, type Kysely } from 'kysely';
import type { Migration } from './index.js';

/**
 * The audit log (issue 43, item 4; services/audit-log.ts): one row per change to people, tokens,
 * keys, settings, forms, templates and plans, and per export, download, erasure and deletion of
 * submissions. No foreign keys: a row outlives the workspace, the account and the form it names
 * (`actor_email` and `target_name` are copied for that), until the retention purge
 * (FORMGATE_AUDIT_RETENTION_DAYS, jobs/audit-purge.ts). `details` is JSON text: the names of what
 * changed, never a submitted value. The indexes list a workspace's events and the installation's
 * newest first, and find the oldest for the purge (the second serves both).
 */
export const auditLog: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('audit_events')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addColumn('workspace_id', 'text')
      .addColumn('actor_user_id', 'text')
      .addColumn('actor_email', 'text')
      .addColumn('via', 'text', (c) => c.notNull())
      .addColumn('ip', 'text')
      .addColumn('user_agent', 'text')
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('target_kind', 'text')
      .addColumn('target_id', 'text')
      .addColumn('target_name', 'text')
      .addColumn('details', 'text')
      .execute();
    await sql`CREATE INDEX audit_events_workspace ON audit_events (workspace_id, at, id)`.execute(db);
    await sql`CREATE INDEX audit_events_at ON audit_events (at, id)`.execute(db);
  },
};
