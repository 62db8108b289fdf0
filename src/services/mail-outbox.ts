import type { Config } from '../config/config.js';
import type { Queryable } from '../db/database.js';
import { ownerAddresses } from '../db/workspace-owners.js';
import { EMAIL_KIND, type EmailPayload } from '../jobs/channels/email.js';
import { enqueueJob, enqueueJobs } from '../jobs/outbox.js';
import { type AccountMessage, accountEmail, automaticEmail } from '../mail/account-mail.js';
import { type PlanChange, planChangeMessage } from '../mail/plan-change.js';
import { quotaNoticeMessage } from '../mail/quota-notice.js';
import { PlanRules, planLabel } from '../domain/plans.js';

// The emails services decide to send: src/mail/ builds each message, and it is enqueued here in the
// caller's transaction (the outbox), so it goes out (with retries) exactly when what it tells of commits.

// NOTE: a quota notice is only ever sent in hosting mode (team mode has no allowance to run out)
const HOSTING_RULES = PlanRules.fixed('hosting');

/** Enqueues an account email (a reset link, an invitation, a new token) in the caller's transaction. */
export function enqueueAccountEmail(trx: Queryable, to: string, message: AccountMessage): Promise<string> {
  return enqueueJob(trx, { kind: EMAIL_KIND, payload: accountEmail(to, message) satisfies EmailPayload });
}

/**
 * Tells each owner of the workspace that its plan changed (what a payment or an admin did), in the
 * transaction that changed it: one email per owner, so no owner sees the others' addresses.
 */
export async function enqueuePlanChangeEmails(trx: Queryable, change: PlanChange, publicUrl: string, plans: PlanRules): Promise<number> {
  const owners = await ownerAddresses(trx, change.workspace);
  const terms = {
    allowance: plans.limits(change.to).submissions,
    left: plans.submissionsLeft(change.to, change.workspace.submissionsUsed),
    upgraded: plans.isUpgraded(change.to),
    unlimited: plans.team,
    fromLabel: plans.label(change.from),
    toLabel: plans.label(change.to),
  };
  const message = planChangeMessage(change, terms, publicUrl);
  for (const { email } of owners) await enqueueAccountEmail(trx, email, message);
  return owners.length;
}

/**
 * Enqueues the email telling a workspace's owners that its allowance ran out, in the transaction
 * that held the first submission past it: one job per owner, so no owner sees the others' addresses
 * and one refusing server does not send the rest theirs twice. Returns the job ids (none with no owner to tell).
 */
export async function quotaNoticeJobs(trx: Queryable, workspaceId: string, config: Pick<Config, 'publicUrl'>): Promise<string[]> {
  const workspace = await trx.selectFrom('workspaces').select(['id', 'name', 'plan', 'ownerId']).where('id', '=', workspaceId).executeTakeFirst();
  if (!workspace) return [];
  // Owners decide on an upgrade; members cannot, so they are not told.
  const owners = await ownerAddresses(trx, workspace);
  const message = quotaNoticeMessage({
    name: workspace.name,
    id: workspace.id,
    plan: planLabel(workspace.plan),
    allowance: HOSTING_RULES.limits(workspace.plan).submissions,
    held: HOSTING_RULES.limits(workspace.plan).held,
    url: config.publicUrl,
  });
  return enqueueJobs(
    trx,
    owners.map(({ email }) => ({ kind: EMAIL_KIND, payload: automaticEmail(email, message) satisfies EmailPayload })),
  );
}
