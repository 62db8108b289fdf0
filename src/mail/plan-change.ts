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
  /** Team mode: no allowance to tell of. */
  unlimited?: boolean;
  /** The plans as people read them ("Free", "Upgraded (50,000 submissions)"): never the codes. */
  fromLabel: string;
  toLabel: string;
}

/** What the email says: the new plan, the allowance left, and what was released. */
export function planChangeMessage({ workspace, released }: PlanChange, terms: NewPlanTerms, publicUrl: string): AccountMessage {
  const number = (n: number) => n.toLocaleString('en-US');
  const paragraphs = [
    `The plan of your workspace "${workspace.name}" changed from ${terms.fromLabel} to ${terms.toLabel}.`,
    terms.unlimited
      ? 'This installation gives every workspace every feature and no limit, whatever its plan.'
      : `Its allowance is now ${number(terms.allowance)} accepted submissions, of which ${number(terms.left)} are left.`,
  ];
  if (released > 0) {
    paragraphs.push(
      `${number(released)} held ${released === 1 ? 'submission was' : 'submissions were'} released: they are listed now, and delivered as if they had just arrived.`,
    );
  }
  if (!terms.upgraded && !terms.unlimited) paragraphs.push('On the free plan the workspace has no autoresponder and no REST API.');
  return {
    subject: `Workspace "${workspace.name}" is now on the ${terms.toLabel} plan`,
    paragraphs,
    action: { label: 'Open the workspace', url: `${publicUrl}/w/${workspace.id}` },
    footer: `You receive this email because you own workspace ${workspace.id} at ${publicUrl}.`,
  };
}
