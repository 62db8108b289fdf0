import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import type { Migration } from './index.js';

// What makes a submission unread in the inbox: the condition of 0022's partial index, kept here.
const COUNTED = (row: string) => `${row}.unread = 1 AND ${row}.status = 'accepted'`;

/**
 * Each form's unread submissions as a count (issue 44): `unread_counts`, kept by triggers on
 * `submissions`, replaces 0022's partial index `submissions_unread`. That index put a page per form
 * into every batch's commit, each new submission's entry about a tenth of its cost on SQLite; a count
 * per form is one small row, all of a batch's forms on one page, and the inbox's "Submissions 12"
 * reads one row instead of counting up to a hundred. Triggers rather than the writers, so that every
 * path that adds, reads, moves or deletes a submission (intake, the import, marks, spam moves,
 * retention, erasure, cascades) keeps it exact without knowing of it.
 *
 * SQLite's triggers run per row. PostgreSQL's run per statement over its transition tables: one
 * upsert per intake batch, counts changed in form order so that two transactions never wait on each
 * other's rows in opposite orders. A decrement only updates (never inserts): a form deleted by
 * cascade takes its row with it, and must not have it made again.
 */
export const unreadCounts: Migration = {
  async up(db: Kysely<any>, dialect: Dialect) {
    await db.schema
      .createTable('unread_counts')
      .addColumn('form_id', 'text', (c) => c.primaryKey().references('forms.id').onDelete('cascade'))
      .addColumn('n', 'integer', (c) => c.notNull())
      .execute();
    await sql.raw(`INSERT INTO unread_counts (form_id, n) SELECT form_id, count(*) FROM submissions s WHERE ${COUNTED('s')} GROUP BY form_id`).execute(db);
    await sql`DROP INDEX submissions_unread`.execute(db);
    if (dialect === 'sqlite') await sqliteTriggers(db);
    else await postgresTriggers(db);
  },
};

async function sqliteTriggers(db: Kysely<any>): Promise<void> {
  const add = (row: string) =>
    `INSERT INTO unread_counts (form_id, n) SELECT ${row}.form_id, 1 WHERE ${COUNTED(row)} ON CONFLICT (form_id) DO UPDATE SET n = n + 1;`;
  const take = (row: string) => `UPDATE unread_counts SET n = n - 1 WHERE form_id = ${row}.form_id AND ${COUNTED(row)};`;
  await sql.raw(`CREATE TRIGGER submissions_unread_insert AFTER INSERT ON submissions WHEN ${COUNTED('NEW')} BEGIN ${add('NEW')} END`).execute(db);
  await sql.raw(`CREATE TRIGGER submissions_unread_delete AFTER DELETE ON submissions WHEN ${COUNTED('OLD')} BEGIN ${take('OLD')} END`).execute(db);
  await sql
    .raw(
      `CREATE TRIGGER submissions_unread_update AFTER UPDATE OF unread, status, form_id ON submissions
       WHEN (${COUNTED('OLD')}) IS NOT (${COUNTED('NEW')}) OR OLD.form_id IS NOT NEW.form_id
       BEGIN ${take('OLD')} ${add('NEW')} END`,
    )
    .execute(db);
}

async function postgresTriggers(db: Kysely<any>): Promise<void> {
  // a batch's or an update's changes, summed per form and applied in form order
  const upsert = (changes: string) =>
    `INSERT INTO unread_counts (form_id, n) SELECT form_id, sum(d) FROM (${changes}) changes GROUP BY form_id HAVING sum(d) <> 0 ORDER BY form_id
     ON CONFLICT (form_id) DO UPDATE SET n = unread_counts.n + excluded.n;`;
  const functions: Record<string, string> = {
    formgate_unread_added: upsert(`SELECT form_id, 1 AS d FROM added WHERE ${COUNTED('added')}`),
    formgate_unread_changed: upsert(
      `SELECT form_id, -1 AS d FROM old_rows WHERE ${COUNTED('old_rows')} UNION ALL SELECT form_id, 1 FROM new_rows WHERE ${COUNTED('new_rows')}`,
    ),
    formgate_unread_removed: `PERFORM 1 FROM unread_counts WHERE form_id IN (SELECT form_id FROM removed WHERE ${COUNTED('removed')}) ORDER BY form_id FOR UPDATE;
      UPDATE unread_counts SET n = unread_counts.n - gone.n
        FROM (SELECT form_id, count(*) AS n FROM removed WHERE ${COUNTED('removed')} GROUP BY form_id) gone
        WHERE unread_counts.form_id = gone.form_id;`,
  };
  for (const [name, body] of Object.entries(functions)) {
    await sql.raw(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${body} RETURN NULL; END $$`).execute(db);
  }
  const triggers = [
    'submissions_unread_insert AFTER INSERT ON submissions REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION formgate_unread_added()',
    'submissions_unread_update AFTER UPDATE ON submissions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION formgate_unread_changed()',
    'submissions_unread_delete AFTER DELETE ON submissions REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION formgate_unread_removed()',
  ];
  for (const trigger of triggers) await sql.raw(`CREATE TRIGGER ${trigger}`).execute(db);
}
