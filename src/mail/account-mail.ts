import type { Queryable } from '../db/database.js';
import { EMAIL_KIND, type EmailPayload } from '../jobs/channels/email.js';
import { enqueueJob } from '../jobs/outbox.js';
import { headerText } from './header-text.js';

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
  const html =
    '<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#1f2328">' +
    message.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('') +
    (action
      ? `<p><a href="${escapeHtml(action.url)}" style="display:inline-block;padding:10px 16px;background:#2f5bd3;color:#fff;border-radius:6px;text-decoration:none">${escapeHtml(action.label)}</a></p>` +
        `<p style="color:#57606a;font-size:14px">Or open this address: ${escapeHtml(action.url)}</p>`
      : '') +
    `<p style="color:#57606a;font-size:14px">${escapeHtml(message.footer)}</p></body></html>`;
  return { subject, text, html };
}

/**
 * Enqueues the email in the caller's transaction, so it goes out (with retries) exactly when the
 * change it tells of is committed. Automatic mail: vacation responders must not answer it (RFC 3834).
 */
export function enqueueAccountEmail(trx: Queryable, to: string, message: AccountMessage): Promise<string> {
  const payload: EmailPayload = {
    to: [to],
    ...renderAccountMessage(message),
    headers: { 'Auto-Submitted': 'auto-generated' },
    ...(message.oneTimeLink ? { oneTimeLink: true } : {}),
  };
  return enqueueJob(trx, { kind: EMAIL_KIND, payload });
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
