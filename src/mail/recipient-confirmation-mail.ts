import type { AccountMessage } from './account-mail.js';

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
 * Nothing in it is a call to act on the sender's behalf: the workspace's and forms' names are quoted,
 * the one link leads to this instance's own page, where declining is as easy as confirming.
 */
export function recipientConfirmationEmail(input: ConfirmationMailInput): AccountMessage {
  const who = input.requestedBy ? `${input.requestedBy}, of the workspace “${input.workspaceName}”,` : `The workspace “${input.workspaceName}”`;
  const forms = input.formNames.length > 0 ? ` (${input.formNames.map((name) => `“${name}”`).join(', ')})` : '';
  return {
    subject: `Do you want form notifications from “${input.workspaceName}”?`,
    paragraphs: [
      `${who} asked Formgate to email you the submissions of its forms${forms}.`,
      'You will get none of them unless you confirm. Open the link to confirm or to decline; you can change your mind later with the same link.',
    ],
    action: { label: 'Confirm or decline', url: input.url },
    oneTimeLink: true,
    footer: `This email was sent to ${input.to} once, on behalf of that workspace. If you did not expect it, ignore it: nothing is sent to you unless you confirm.`,
  };
}
