import type { Queryable } from '../db/database.js';
import type { Plan } from '../domain/plans.js';
import { isUpgraded, planLimits, submissionsLeft } from '../services/plans.js';
import { type AccountMessage, enqueueAccountEmail } from './account-mail.js';
import { ownerAddresses } from './quota-notice.js';

export interface PlanChange {
  workspace: { id: string; name: string; ownerId: string; submissionsUsed: number };
  from: Plan;
  to: Plan;
  /** Held submissions the change released. */
  released: number;
}

/**
 * Tells each owner of the workspace that its plan changed (what a payment or an admin did), in the
 * transaction that changed it: one email per owner, so no owner sees the others' addresses.
 */
export async function enqueuePlanChangeEmails(trx: Queryable, change: PlanChange, publicUrl: string): Promise<number> {
  const owners = await ownerAddresses(trx, change.workspace);
  const message = planChangeMessage(change, publicUrl);
  for (const { email } of owners) await enqueueAccountEmail(trx, email, message);
  return owners.length;
}

/** What the email says: the new plan, the allowance left, and what was released. */
export function planChangeMessage({ workspace, from, to, released }: PlanChange, publicUrl: string): AccountMessage {
  const number = (n: number) => n.toLocaleString('en-US');
  const allowance = planLimits(to).submissions;
  const paragraphs = [
    `The plan of your workspace "${workspace.name}" changed from ${from} to ${to}.`,
    `Its allowance is now ${number(allowance)} accepted submissions, of which ${number(submissionsLeft(to, workspace.submissionsUsed))} are left.`,
  ];
  if (released > 0) {
    paragraphs.push(
      `${number(released)} held ${released === 1 ? 'submission was' : 'submissions were'} released: they are listed now, and delivered as if they had just arrived.`,
    );
  }
  if (!isUpgraded(to)) paragraphs.push('On the free plan the workspace has no autoresponder and no REST API.');
  return {
    subject: `Workspace "${workspace.name}" is now on the ${to} plan`,
    paragraphs,
    action: { label: 'Open the workspace', url: `${publicUrl}/w/${workspace.id}` },
    footer: `You receive this email because you own workspace ${workspace.id} at ${publicUrl}.`,
  };
}
