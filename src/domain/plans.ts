/** A workspace's plan: FREE, or a one-time upgrade. */
export type Plan = 'FREE' | 'BUNDLE_50000' | 'DEALIFY';
/** Every plan, in the spec's order. */
export const PLANS: readonly Plan[] = ['FREE', 'BUNDLE_50000', 'DEALIFY'];

/** Input (CLI, admin page, config) names a plan as text: this checks it is one. */
export function isPlan(value: string): value is Plan {
  return (PLANS as readonly string[]).includes(value);
}

interface PlanLimits {
  forms: number;
  /** Accepted submissions granted by the plan, over the workspace's life (a one-time purchase). */
  submissions: number;
  /** Team members including the owner; null is unlimited. */
  members: number | null;
  /** Submissions held past the allowance, at most: past them a submission is refused, nothing stored. */
  held: number;
}

// Held: as many again as the allowance, so a visitor cannot fill the disk through a workspace that ran out.
const FREE: PlanLimits = { forms: 10, submissions: 250, members: 5, held: 250 };
const UPGRADED: PlanLimits = { forms: 100, submissions: 50_000, members: null, held: 50_000 };

export function planLimits(plan: Plan): PlanLimits {
  return plan === 'FREE' ? FREE : UPGRADED;
}

/** Upgraded workspaces have the REST API, the autoresponder and unbranded pages. */
export function isUpgraded(plan: Plan): boolean {
  return plan !== 'FREE';
}

/** `submissionsQuota` of the API: what is left of the plan's allowance. */
export function submissionsLeft(plan: Plan, used: number): number {
  return Math.max(0, planLimits(plan).submissions - used);
}
