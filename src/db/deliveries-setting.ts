import type { Queryable } from './database.js';

/** The `settings` row that pauses every instance's deliveries: present means paused. */
export const DELIVERIES_PAUSED_KEY = 'deliveries-paused';

/** Who paused deliveries and when, as kept in the row's value. */
export interface DeliveriesPause {
  /** ISO 8601 time of the pause. */
  at: string;
  /** Who or what paused them: an account's address, `formgate deliveries pause`, `formgate restore`… */
  by: string;
}

/** The pause recorded in the database, or null when deliveries run. */
export async function readDeliveriesPause(db: Queryable): Promise<DeliveriesPause | null> {
  const row = await db.selectFrom('settings').select('value').where('key', '=', DELIVERIES_PAUSED_KEY).executeTakeFirst();
  if (!row) return null;
  try {
    const value = JSON.parse(row.value) as Partial<DeliveriesPause>;
    return { at: String(value.at ?? ''), by: String(value.by ?? 'unknown') };
  } catch {
    // NOTE: a row written by hand with any other value still pauses: its presence is the switch
    return { at: '', by: row.value };
  }
}

/** Records a pause; an existing one keeps its time and author, so the first pause is the one shown. */
export async function writeDeliveriesPause(db: Queryable, by: string, now = Date.now()): Promise<DeliveriesPause> {
  const pause = { at: new Date(now).toISOString(), by };
  await db
    .insertInto('settings')
    .values({ key: DELIVERIES_PAUSED_KEY, value: JSON.stringify(pause), createdAt: now })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  return (await readDeliveriesPause(db)) ?? pause;
}

/** Removes the pause; answers whether there was one. */
export async function clearDeliveriesPause(db: Queryable): Promise<boolean> {
  const result = await db.deleteFrom('settings').where('key', '=', DELIVERIES_PAUSED_KEY).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
