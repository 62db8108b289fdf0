import { headerText } from './header-text.js';
import type { MailMessage } from './transport.js';

/**
 * The autoresponder email, in one place for the two that need it: the delivery channel that sends
 * it and the content check that scores it as it would be sent.
 */
export function autoresponderMessage(input: {
  formName: string;
  to: string;
  replyTo?: string;
  body: { html: string; text: string };
  /** The form's own subject and sender name (its Settings); null or absent: the defaults. */
  subject?: string | null;
  fromName?: string | null;
}): MailMessage {
  const fromName = headerText(input.fromName ?? undefined, 64);
  return {
    to: [input.to],
    subject: headerText(input.subject ?? undefined, 200) || headerText(`Re: ${input.formName}`, 200),
    ...(fromName ? { fromName } : {}),
    html: input.body.html,
    text: input.body.text,
    ...(input.replyTo ? { replyTo: input.replyTo } : {}),
    // An automatic answer (RFC 3834): other robots must not answer it in turn.
    headers: { 'Auto-Submitted': 'auto-replied', 'X-Auto-Response-Suppress': 'All' },
  };
}
