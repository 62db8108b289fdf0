import type { InvitationRow } from '../db/schema/invitation.js';
import type { AccountMessage } from './account-mail.js';
import { inertQuote } from './inert-text.js';

/**
 * The invitation email: who asks, to which workspace, until when; the link is its one action. It goes
 * to an address of the inviter's choosing, so the workspace's name stays out of the subject and is
 * quoted inertly in the body, as in the confirmation email (issue 38, item 10).
 */
export function invitationEmail(workspace: { name: string }, inviter: string, invitation: InvitationRow, url: string): AccountMessage {
  const until = new Date(invitation.expiresAt).toUTCString().replace(/:\d\d GMT$/, ' UTC');
  return {
    subject: `${inviter} invited you to a workspace on Formgate`,
    paragraphs: [
      `${inviter} invited you to join the workspace “${inertQuote(workspace.name)}” on Formgate, where its team collects the submissions of its forms.`,
      `The link works once, until ${until}.`,
    ],
    action: { label: 'Join workspace', url },
    oneTimeLink: true,
    footer: `This invitation was sent to ${invitation.email}. If you did not expect it, ignore this email: nothing happens unless you open the link.`,
  };
}
