/** A workspace's plan: FREE, or a one-time upgrade. */
export type Plan = 'FREE' | 'BUNDLE_50000' | 'DEALIFY';
/** Every plan, in the spec's order. */
export const PLANS: readonly Plan[] = ['FREE', 'BUNDLE_50000', 'DEALIFY'];

/** Input (CLI, admin page, config) names a plan as text: this checks it is one. */
export function isPlan(value: string): value is Plan {
  return (PLANS as readonly string[]).includes(value);
}
