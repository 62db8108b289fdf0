import { sql, type Transaction } from 'kysely';
import type { Dialect } from '../db/database.js';
import type { DB } from '../db/schema/index.js';
import { ProblemError } from '../errors.js';
import { PLANS, planLimits, PlanRules, UNLIMITED_SUBMISSIONS } from '../domain/plans.js';

/** Called inside the transaction that holds the first submission past a workspace's allowance. */
export type AllowanceReached = (trx: Transaction<DB>, workspaceId: string) => Promise<void>;

/** The plan's allowance as SQL, so the check reads the plan in the same row lock as the counter. */
export const ALLOWANCE = sql<number>`CASE plan ${sql.join(
  PLANS.map((plan) => sql`WHEN ${sql.lit(plan)} THEN ${sql.lit(planLimits(plan).submissions)}`),
  sql` `,
)} END`;
const UNLIMITED = sql<number>`${sql.lit(UNLIMITED_SUBMISSIONS)}`;
const HOSTING_RULES = PlanRules.fixed('hosting');

/** The allowance as the installation applies it: the plans' in hosting mode, no cap (a literal) in team mode. */
export function allowanceSql(plans: PlanRules) {
  return plans.team ? UNLIMITED : ALLOWANCE;
}

/**
 * Counts one submission against its workspace's allowance: accepted while the allowance lasts,
 * held past it, and the first held one since the allowance last grew calls `onReached` (the owners'
 * notice). Shared by the writer (a workspace near its limit) and "Not spam", so both count alike.
 */
export async function countAgainstAllowance(
  trx: Transaction<DB>,
  workspaceId: string,
  now: number,
  onReached: AllowanceReached,
  plans: PlanRules = HOSTING_RULES,
): Promise<'accepted' | 'held'> {
  const counted = await trx
    .updateTable('workspaces')
    .set((eb) => ({ submissionsUsed: eb('submissionsUsed', '+', 1) }))
    .where('id', '=', workspaceId)
    .where('submissionsUsed', '<', allowanceSql(plans))
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

/**
 * How many more submissions the workspace may hold past its allowance (none: refuse them). Locks
 * the workspace's row first (PostgreSQL), so that of two instances' transactions the second counts
 * the first one's held rows once it has committed: the cap holds exactly. The count reads the
 * partial index of held rows and stops at the cap, so it costs at most the cap's index entries.
 */
export async function heldRoom(trx: Transaction<DB>, dialect: Dialect, workspaceId: string, plans: PlanRules = HOSTING_RULES): Promise<number> {
  const select = trx.selectFrom('workspaces').select('plan').where('id', '=', workspaceId);
  const workspace = await (dialect === 'postgres' ? select.forUpdate() : select).executeTakeFirst();
  if (!workspace) return 0;
  const cap = plans.limits(workspace.plan).held;
  // NOTE: the status as a literal, so the planner uses the partial index submissions_held_seq
  const held = trx
    .selectFrom('submissions')
    .select(sql.lit(1).as('one'))
    .where('workspaceId', '=', workspaceId)
    .where('status', '=', sql.lit('held'))
    .limit(cap)
    .as('held');
  const row = await trx
    .selectFrom(held)
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return cap - Number(row.n);
}

/** The submit surface's refusal once a workspace holds all it may past its allowance: nothing was stored. */
export function heldFull(): ProblemError {
  return new ProblemError(
    'quota_exceeded',
    'This form’s workspace has used its allowance of submissions and holds as many more as it can keep until it is upgraded; nothing was stored. Its owners have been told.',
  );
}
