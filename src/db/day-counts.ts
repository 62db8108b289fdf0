import { sql, type Transaction } from 'kysely';
import type { Dialect } from './database.js';
import type { DailyCountTable } from './schema/daily-count.js';
import type { DB } from './schema/index.js';

/**
 * Adds to forms' counts of days (the charts, the month, the last submission) in one statement:
 * intake's batches and the import's pages. The rows go in (form, day) order, so that two writers take
 * PostgreSQL's row locks in one order.
 */
export async function addDayCounts(trx: Transaction<DB>, dialect: Dialect, counts: DailyCountTable[]): Promise<void> {
  if (counts.length === 0) return;
  const ordered = [...counts].sort((a, b) => (a.formId < b.formId ? -1 : a.formId > b.formId ? 1 : a.day - b.day));
  await trx
    .insertInto('dailyCounts')
    .values(ordered)
    .onConflict((oc) =>
      oc.columns(['formId', 'day']).doUpdateSet((eb) => ({
        accepted: eb('dailyCounts.accepted', '+', eb.ref('excluded.accepted')),
        spam: eb('dailyCounts.spam', '+', eb.ref('excluded.spam')),
        // two instances' clocks may disagree: the newest time wins
        lastAt: sql<number>`${sql.raw(dialect === 'postgres' ? 'GREATEST' : 'MAX')}(daily_counts.last_at, excluded.last_at)`,
      })),
    )
    .execute();
}
