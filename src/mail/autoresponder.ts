import { domainToUnicode } from 'node:url';
import { headerText } from './header-text.js';
import type { MailMessage } from './transport.js';

/**
 * The autoresponder's subject when the form sets none. NOTE: never the form's name: the name is
 * the owner's label ("Leads – spring campaign"), and the new-form page promises only they see it.
 */
export const DEFAULT_AUTORESPONSE_SUBJECT = 'We received your message';

/**
 * The autoresponder email, in one place for the two that need it: the delivery channel that sends
 * it and the content check that scores it as it would be sent.
 */
export function autoresponderMessage(input: {
  to: string;
  replyTo?: string;
  body: { html: string; text: string };
  /** The form's own subject (its Settings, placeholders filled in) and sender name; null or absent: the defaults. */
  subject?: string | null;
  fromName?: string | null;
  /**
   * The site the visitor posted from (the host of the form's first allowed origin), the sender's
   * name when the form sets none; null: the instance's (FORMGATE_MAIL_FROM's).
   */
  site?: string | null;
}): MailMessage {
  const fromName = headerText(input.fromName ?? undefined, 64) || headerText(input.site ?? undefined, 64);
  return {
    to: [input.to],
    subject: headerText(input.subject ?? undefined, 200) || DEFAULT_AUTORESPONSE_SUBJECT,
    ...(fromName ? { fromName } : {}),
    html: input.body.html,
    text: input.body.text,
    ...(input.replyTo ? { replyTo: input.replyTo } : {}),
    // An automatic answer (RFC 3834): other robots must not answer it in turn.
    headers: { 'Auto-Submitted': 'auto-replied', 'X-Auto-Response-Suppress': 'All' },
  };
}

/** The site a form's visitors post from, as the autoresponder names it: the host of its first allowed origin. */
export function siteOf(allowedOrigins: readonly string[]): string | null {
  const first = allowedOrigins[0];
  if (!first) return null;
  try {
    // as people read it: `café.example`, not its `xn--` form
    return domainToUnicode(new URL(first).hostname) || null;
  } catch {
    return null;
  }
}
