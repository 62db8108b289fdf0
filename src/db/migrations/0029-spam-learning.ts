import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import type { Migration } from './index.js';

/**
 * What each workspace taught the spam filter by marking submissions (issue 40; services/spam-lessons.ts).
 * - `spam_models`: per workspace, how many spam and legitimate submissions it learned from, and how
 *   many token rows it holds (bounded). Every lesson updates it, so its change count tells every
 *   instance to read the workspace's counts again: SQLite's `change_counts` row `spam_models`,
 *   PostgreSQL's notification of the same name (migrations 0010 and 0023).
 * - `spam_tokens`: per workspace and token (a 53-bit hash of the word, never the word), in how many
 *   of those submissions it appeared, and when it was last learned (the oldest go first past the bound).
 * - `submissions.spam_lesson`: what the filter learned from this submission (`spam`, `ham` or
 *   nothing), so that a second mark does not count it twice, a change of mind moves it, and erasing
 *   the person takes it back.
 */
export const spamLearning: Migration = {
  async up(db: Kysely<any>, dialect: Dialect) {
    await db.schema.alterTable('submissions').addColumn('spam_lesson', 'text').execute();
    await db.schema
      .createTable('spam_models')
      .addColumn('workspace_id', 'text', (c) => c.primaryKey().references('workspaces.id').onDelete('cascade'))
      .addColumn('spam_messages', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('ham_messages', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('tokens', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .createTable('spam_tokens')
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('token', 'bigint', (c) => c.notNull())
      .addColumn('spam', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('ham', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('learned_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('spam_tokens_pk', ['workspace_id', 'token'])
      .execute();
    await db.schema.createIndex('spam_tokens_age').on('spam_tokens').columns(['workspace_id', 'learned_at']).execute();
    if (dialect === 'sqlite') {
      await sql`INSERT INTO change_counts (name, n) VALUES ('spam_models', 0)`.execute(db);
      for (const event of ['INSERT', 'UPDATE', 'DELETE'])
        await sql
          .raw(
            `CREATE TRIGGER spam_models_${event.toLowerCase()} AFTER ${event} ON spam_models BEGIN UPDATE change_counts SET n = n + 1 WHERE name = 'spam_models'; END`,
          )
          .execute(db);
    } else {
      await sql`CREATE TRIGGER spam_models_change AFTER INSERT OR UPDATE OR DELETE ON spam_models FOR EACH STATEMENT EXECUTE FUNCTION formgate_notify_change('spam_models')`.execute(
        db,
      );
    }
  },
};
