import { emailDocument } from './email-document.js';
import { headerText } from './header-text.js';
import type { MailMessage } from './transport.js';

/** An email about an account or a workspace (a reset link, an invitation, a plan change). */
export interface AccountMessage {
  subject: string;
  paragraphs: string[];
  /** The one thing to do, as a button in HTML and a bare address in text. */
  action?: { label: string; url: string };
  /** The small print under it: why this email came. */
  footer: string;
  /** The action's URL holds a secret that works once (a reset or an invitation link): removed from the job once sent. */
  oneTimeLink?: boolean;
}

/** The message's subject, text and HTML, every value escaped. */
export function renderAccountMessage(message: AccountMessage): { subject: string; text: string; html: string } {
  // NOTE: a workspace name or an address could hold line breaks and other controls; a subject must be one line.
  const subject = headerText(message.subject, 400);
  const action = message.action;
  const text = `${[...message.paragraphs, ...(action ? [`${action.label}: ${action.url}`] : []), message.footer].join('\n\n')}\n`;
  const html = accountMailHtml(
    subject,
    message.paragraphs.map((p) => `<p style="${PARAGRAPH}">${escapeHtml(p)}</p>`).join('') +
      (action
        ? `<p style="margin:20px 0 8px;"><a href="${escapeHtml(action.url)}" style="display:inline-block;padding:10px 16px;background:#2f55c9;color:#ffffff;border-radius:6px;text-decoration:none;font-weight:600;">${escapeHtml(action.label)}</a></p>` +
          `<p style="${SMALL}">Or open this address: ${escapeHtml(action.url)}</p>`
        : ''),
    escapeHtml(message.footer),
  );
  return { subject, text, html };
}

const PARAGRAPH = 'margin:0 0 12px;font-size:15px;line-height:1.5;color:#111827;';
const SMALL = 'margin:0 0 12px;font-size:13px;line-height:1.5;color:#6b7280;overflow-wrap:anywhere;';

/**
 * The layout of every email Formgate writes about an account or a workspace: the card of the
 * notification emails (a light page, a white card, the name above it), so none arrives as bare text.
 * `subject` is text (the document's title); `body` and `footer` are HTML, escaped by the caller.
 */
export function accountMailHtml(subject: string, body: string, footer: string): string {
  return emailDocument({
    title: subject,
    bodyStyle: 'margin:0;padding:24px;background:#f9fafb;font-family:-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif;',
    body: `<div style="max-width:560px;margin:0 auto;">
<p style="margin:0 0 12px;font-size:16px;font-weight:700;color:#1d2330;">Formgate</p>
<div style="background:#ffffff;border:1px solid #e5e7eb;border-radius:8px;padding:24px;">${body}</div>
<p style="margin:12px 4px 0;font-size:12px;line-height:1.5;color:#6b7280;">${footer}</p>
</div>`,
  });
}

/** An account email as the email channel sends it; the caller enqueues it (services/mail-outbox.ts). */
export interface AccountEmail extends MailMessage {
  /** The message holds a one-time link: the job keeps no text of it once sent. */
  oneTimeLink?: boolean;
}

/** The account message to one address, ready to enqueue in the transaction that made the change it tells of. */
export function accountEmail(to: string, message: AccountMessage): AccountEmail {
  return { ...automaticEmail(to, renderAccountMessage(message)), ...(message.oneTimeLink ? { oneTimeLink: true } : {}) };
}

/** Automatic mail to one address: vacation responders must not answer it (RFC 3834). */
export function automaticEmail(to: string, rendered: { subject: string; text: string; html: string }): MailMessage {
  return { to: [to], ...rendered, headers: { 'Auto-Submitted': 'auto-generated' } };
}

/** Where a token was made: the dashboard (from the client's address) or the command line. */
export type TokenOrigin = { via: 'dashboard'; address: string } | { via: 'command line' };

/** "A new API token was created": names the token, its scopes, when and from where, and how to undo it. */
export function tokenCreatedMessage(
  email: string,
  token: { name: string; scopes: string; expiresAt: number | null; createdAt: number },
  origin: TokenOrigin,
  publicUrl: string,
): AccountMessage {
  const scopes = (JSON.parse(token.scopes) as string[]).join(', ');
  const when = new Date(token.createdAt)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');
  const where = origin.via === 'dashboard' ? `in the dashboard, from the address ${origin.address}` : 'on the server’s command line (formgate tokens create)';
  const expiry = token.expiresAt === null ? 'It works until it is revoked.' : `It expires at ${new Date(token.expiresAt).toISOString()}.`;
  return {
    subject: `A new API token “${token.name}” was created for your Formgate account`,
    paragraphs: [
      `An API token named “${token.name}” was created for the Formgate account ${email} at ${publicUrl}, on ${when}, ${where}.`,
      `Scopes: ${scopes}. ${expiry}`,
      'If this was not you, revoke the token now, then change your password and log out everywhere (the account page offers to revoke every token with it).',
    ],
    action: { label: 'Review your API tokens', url: `${publicUrl}/account/tokens` },
    footer: 'You get this email whenever an API token is created for your account.',
  };
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
