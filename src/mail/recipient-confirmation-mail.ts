import type { AccountMessage } from './account-mail.js';
import { inertQuote } from './inert-text.js';

/** The subject of every confirmation email: fixed, so no owner's words reach anyone's inbox list. */
export const CONFIRMATION_SUBJECT = 'Do you want form notifications from a workspace on Formgate?';
/** Forms named in the email at most; the page behind the link lists them all. */
const FORMS_NAMED = 5;

export interface ConfirmationMailInput {
  to: string;
  workspaceName: string;
  /** The member whose change listed the address; null when unknown (the account is gone). */
  requestedBy: string | null;
  /** The forms of the workspace that list the address, by name. */
  formNames: string[];
  /** The page that asks to confirm or decline. */
  url: string;
}

/**
 * Asks an address outside a workspace's team whether it wants that workspace's form notifications.
 * Nothing in it is a call to act on the sender's behalf: the subject is fixed, the workspace's and
 * forms' names are quoted inertly in the body (inert-text.ts: one line, short, no link), and the one
 * link leads to this instance's own page, where declining is as easy as confirming.
 */
export function recipientConfirmationEmail(input: ConfirmationMailInput): AccountMessage {
  const workspace = inertQuote(input.workspaceName);
  const who = input.requestedBy ? `${input.requestedBy}, of the workspace “${workspace}”,` : `The workspace “${workspace}”`;
  const named = input.formNames.slice(0, FORMS_NAMED).map((name) => `“${inertQuote(name)}”`);
  const more = input.formNames.length > FORMS_NAMED ? ` and ${input.formNames.length - FORMS_NAMED} more` : '';
  const forms = named.length > 0 ? ` (${named.join(', ')}${more})` : '';
  return {
    subject: CONFIRMATION_SUBJECT,
    paragraphs: [
      `${who} asked Formgate to email you the submissions of its forms${forms}.`,
      'You will get none of them unless you confirm. Open the link to confirm or to decline; you can change your mind later with the same link.',
    ],
    action: { label: 'Confirm or decline', url: input.url },
    oneTimeLink: true,
    footer: `This email was sent to ${input.to} once, on behalf of that workspace. If you did not expect it, ignore it: nothing is sent to you unless you confirm.`,
  };
}
