import type { InvitationRow } from '../db/schema/invitation.js';
import type { AccountMessage } from './account-mail.js';

/** The invitation email: who asks, to which workspace, until when; the link is its one action. */
export function invitationEmail(workspace: { name: string }, inviter: string, invitation: InvitationRow, url: string): AccountMessage {
  const until = new Date(invitation.expiresAt).toUTCString().replace(/:\d\d GMT$/, ' UTC');
  return {
    subject: `${inviter} invited you to ${workspace.name} on Formgate`,
    paragraphs: [
      `${inviter} invited you to join the workspace “${workspace.name}” on Formgate, where its team collects the submissions of its forms.`,
      `The link works once, until ${until}.`,
    ],
    action: { label: 'Join workspace', url },
    oneTimeLink: true,
    footer: `This invitation was sent to ${invitation.email}. If you did not expect it, ignore this email: nothing happens unless you open the link.`,
  };
}
