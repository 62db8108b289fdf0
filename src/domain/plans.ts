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

/** How much spam a workspace's spam folder keeps: past either bound, the filter's spam is dropped. */
export interface SpamFolderCap {
  /** Submissions caught within the spam retention. */
  count: number;
  /** Their bytes: the fields as stored (JSON) and their files. */
  bytes: number;
}

const MB = 1024 * 1024;
// Ten times the submissions the plan allows, far above what a site's filter catches in a month, and
// bytes for about 20 KB each: a flood fills no disk, and what is dropped is spam.
const FREE_SPAM_FOLDER: SpamFolderCap = { count: 2_500, bytes: 50 * MB };
const UPGRADED_SPAM_FOLDER: SpamFolderCap = { count: 50_000, bytes: 1024 * MB };

/** The spam folder's bound of a workspace; `upgraded` as the installation's rules say (team mode: every workspace). */
export function spamFolderCap(plan: Plan, upgraded = isUpgraded(plan)): SpamFolderCap {
  return upgraded ? UPGRADED_SPAM_FOLDER : FREE_SPAM_FOLDER;
}

/** Upgraded workspaces have the REST API, the autoresponder and unbranded pages. */
export function isUpgraded(plan: Plan): boolean {
  return plan !== 'FREE';
}

/** `submissionsQuota` of the API: what is left of the plan's allowance. */
export function submissionsLeft(plan: Plan, used: number): number {
  return Math.max(0, planLimits(plan).submissions - used);
}

/**
 * How an installation is used: `hosting` (forms for others: the spec's plans and their caps apply)
 * or `team` (the owner's own: every workspace gets every feature and no cap, whatever its stored plan).
 */
export type InstanceUsage = 'team' | 'hosting';
export const INSTANCE_USAGES: readonly InstanceUsage[] = ['team', 'hosting'];

/**
 * `submissionsQuota` of the API and the allowance in team mode: int32's largest, so no client reads
 * it as a cap and every client's integer type holds it.
 */
export const UNLIMITED_SUBMISSIONS = 2_147_483_647;

/** Limits with `unlimited` set: pages say "no limit" instead of numbers. */
export interface AppliedLimits extends PlanLimits {
  unlimited: boolean;
}

const TEAM: AppliedLimits = {
  forms: Number.POSITIVE_INFINITY,
  submissions: UNLIMITED_SUBMISSIONS,
  members: null,
  held: UNLIMITED_SUBMISSIONS,
  unlimited: true,
};
const HOSTING: Record<Plan, AppliedLimits> = {
  FREE: { ...FREE, unlimited: false },
  BUNDLE_50000: { ...UPGRADED, unlimited: false },
  DEALIFY: { ...UPGRADED, unlimited: false },
};
const PLAN_LABELS: Record<Plan, string> = { FREE: 'Free', BUNDLE_50000: 'Upgraded (50,000 submissions)', DEALIFY: 'Upgraded (Dealify)' };

/**
 * The plan rules as this installation applies them to a workspace's stored plan: the spec's in
 * hosting mode, everything in team mode. `usage` is read at each call and must be cheap (a cached
 * setting, services/instance-settings.ts): the submit path asks it for every submission.
 */
export class PlanRules {
  constructor(private readonly usage: () => InstanceUsage) {}

  /** Rules fixed to one usage (tests, commands that run without the cache). */
  static fixed(usage: InstanceUsage): PlanRules {
    return new PlanRules(() => usage);
  }

  get team(): boolean {
    return this.usage() === 'team';
  }

  limits(plan: Plan): AppliedLimits {
    return this.team ? TEAM : HOSTING[plan];
  }

  /** The paid features (REST API, autoresponder, unbranded pages, the larger upload ceilings). */
  isUpgraded(plan: Plan): boolean {
    return this.team || isUpgraded(plan);
  }

  /** The stored plans that have the paid features: a query's `plan in (…)`. */
  upgradedPlans(): Plan[] {
    return PLANS.filter((plan) => this.isUpgraded(plan));
  }

  /** `submissionsQuota` of the API: what is left of the allowance; UNLIMITED_SUBMISSIONS in team mode. */
  submissionsLeft(plan: Plan, used: number): number {
    return this.team ? UNLIMITED_SUBMISSIONS : submissionsLeft(plan, used);
  }

  /** The plan as people read it, on every page and email: never the code. */
  label(plan: Plan): string {
    return this.team ? 'Unlimited' : planLabel(plan);
  }
}

/** A stored plan's human name, whatever the mode ("Free", "Upgraded (50,000 submissions)"). */
export function planLabel(plan: string): string {
  return PLAN_LABELS[plan as Plan] ?? plan;
}
