import type { Plan } from '../domain/plans.js';
import type { AccountMessage } from './account-mail.js';

export interface PlanChange {
  workspace: { id: string; name: string; ownerId: string; submissionsUsed: number };
  from: Plan;
  to: Plan;
  /** Held submissions the change released. */
  released: number;
}

/** What the new plan grants, as domain/plans.ts reckons it: the caller works it out, so mail holds no plan rules. */
export interface NewPlanTerms {
  /** Accepted submissions the plan grants. */
  allowance: number;
  /** Of them, how many the workspace has left. */
  left: number;
  upgraded: boolean;
}

/** What the email says: the new plan, the allowance left, and what was released. */
export function planChangeMessage({ workspace, from, to, released }: PlanChange, terms: NewPlanTerms, publicUrl: string): AccountMessage {
  const number = (n: number) => n.toLocaleString('en-US');
  const paragraphs = [
    `The plan of your workspace "${workspace.name}" changed from ${from} to ${to}.`,
    `Its allowance is now ${number(terms.allowance)} accepted submissions, of which ${number(terms.left)} are left.`,
  ];
  if (released > 0) {
    paragraphs.push(
      `${number(released)} held ${released === 1 ? 'submission was' : 'submissions were'} released: they are listed now, and delivered as if they had just arrived.`,
    );
  }
  if (!terms.upgraded) paragraphs.push('On the free plan the workspace has no autoresponder and no REST API.');
  return {
    subject: `Workspace "${workspace.name}" is now on the ${to} plan`,
    paragraphs,
    action: { label: 'Open the workspace', url: `${publicUrl}/w/${workspace.id}` },
    footer: `You receive this email because you own workspace ${workspace.id} at ${publicUrl}.`,
  };
}
