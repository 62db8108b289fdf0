import { sql, type Transaction } from 'kysely';
import type { DB } from '../db/schema/index.js';
import { PLANS, planLimits } from './plans.js';

/** Called inside the transaction that holds the first submission past a workspace's allowance. */
export type AllowanceReached = (trx: Transaction<DB>, workspaceId: string) => Promise<void>;

/** The plan's allowance as SQL, so the check reads the plan in the same row lock as the counter. */
export const ALLOWANCE = sql<number>`CASE plan ${sql.join(
  PLANS.map((plan) => sql`WHEN ${sql.lit(plan)} THEN ${sql.lit(planLimits(plan).submissions)}`),
  sql` `,
)} END`;

/**
 * Counts one submission against its workspace's allowance: accepted while the allowance lasts,
 * held past it, and the first held one since the allowance last grew calls `onReached` (the owners'
 * notice). Shared by the writer (a workspace near its limit) and "Not spam", so both count alike.
 */
export async function countAgainstAllowance(trx: Transaction<DB>, workspaceId: string, now: number, onReached: AllowanceReached): Promise<'accepted' | 'held'> {
  const counted = await trx
    .updateTable('workspaces')
    .set((eb) => ({ submissionsUsed: eb('submissionsUsed', '+', 1) }))
    .where('id', '=', workspaceId)
    .where('submissionsUsed', '<', ALLOWANCE)
    .executeTakeFirst();
  if (counted.numUpdatedRows > 0n) return 'accepted';
  const first = await trx
    .updateTable('workspaces')
    .set({ quotaNotifiedAt: now })
    .where('id', '=', workspaceId)
    .where('quotaNotifiedAt', 'is', null)
    .executeTakeFirst();
  if (first.numUpdatedRows > 0n) await onReached(trx, workspaceId);
  return 'held';
}
