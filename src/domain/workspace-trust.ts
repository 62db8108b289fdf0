import { isUpgraded, type Plan } from './plans.js';

/** What decides whether the instance admin stands behind a workspace. */
export interface TrustFacts {
  /** The stored plan (not team mode's view of it): an upgraded one was given by the operator. */
  plan: Plan;
  /** 1 when the workspace was made by the instance admin (users.is_admin of its owner). */
  ownerIsAdmin: number | boolean | null;
}

/**
 * Whether a workspace is vouched for (docs/decisions.md, "Open sign-up and strangers", issue 38):
 * while sign-up is open, anyone who receives mail can own a workspace, so what reaches people who
 * did not ask (the autoresponder, GET redirects, the owner's words on the submit domain) waits
 * until the operator stands behind it: an upgraded stored plan (the admin page, `set-plan`,
 * FORMGATE_DEFAULT_PLAN) or a workspace the instance admin made. With sign-up by invitation or
 * closed, every account came from a person of the installation, so every workspace is.
 */
export function isVouchedFor(openSignup: boolean, workspace: TrustFacts): boolean {
  return !openSignup || isUpgraded(workspace.plan) || workspace.ownerIsAdmin === 1 || workspace.ownerIsAdmin === true;
}
