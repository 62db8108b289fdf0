import type { AccountMessage } from './account-mail.js';

/** A submission as the email names it: who sent it and its first line, as the inbox does. */
export interface AssignedSubmission {
  id: string;
  formName: string;
  who: string | null;
  firstLine: string;
}

/** How many submissions the email names one by one; the rest are counted. */
const LISTED = 10;

/**
 * "Assigned to you" (issue 41, item 6): to the member a submission was assigned to, by someone else
 * of the workspace, with a link to it (or, for several at once, to the inbox of those assigned to them).
 */
export function assignedMessage(facts: { by: string; publicUrl: string; workspaceId: string; submissions: AssignedSubmission[] }): AccountMessage {
  const base = facts.publicUrl.replace(/\/+$/, '');
  const [first] = facts.submissions;
  const named = (s: AssignedSubmission) => `${s.who ?? 'Someone'} (${s.formName})${s.firstLine ? `: “${s.firstLine}”` : ''}`;
  if (facts.submissions.length === 1 && first) {
    return {
      subject: `${facts.by} assigned you a submission from ${first.who ?? first.formName}`,
      paragraphs: [`${facts.by} assigned you this submission of the form "${first.formName}":`, named(first)],
      action: { label: 'Open the submission', url: `${base}/submissions/${first.id}` },
      footer: 'You receive this email because a member of your workspace assigned a submission to you in Formgate.',
    };
  }
  const listed = facts.submissions.slice(0, LISTED).map(named);
  const more = facts.submissions.length - listed.length;
  return {
    subject: `${facts.by} assigned you ${facts.submissions.length} submissions`,
    paragraphs: [`${facts.by} assigned you ${facts.submissions.length} submissions:`, ...listed, ...(more > 0 ? [`and ${more} more.`] : [])],
    action: { label: 'Open the submissions assigned to you', url: `${base}/w/${facts.workspaceId}/submissions?assignee=me` },
    footer: 'You receive this email because a member of your workspace assigned submissions to you in Formgate.',
  };
}
