import { createHash } from 'node:crypto';

// Every email a job sends carries a Message-ID made from the job alone, never a random one: a retry,
// a restart, another instance or a restored backup sends the same id again, so a receiver can drop
// the copy (docs/reliability.md). The domain is FORMGATE_PUBLIC_URL's host, the instance's own name
// (RFC 5322 3.6.4): the default sender's `localhost` named no one (issue 39, item 9).

/**
 * The host of the public URL, which names every message id: `forms.example.org`, `[::1]`;
 * `formgate.invalid` when the URL has none.
 */
export function messageIdDomain(publicUrl: string): string {
  try {
    const host = new URL(publicUrl).hostname.toLowerCase();
    // a name or an IPv4 address is a dot-atom; an IPv6 address keeps its brackets (a domain literal)
    return /^(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])$/.test(host) ? host : 'formgate.invalid';
  } catch {
    return 'formgate.invalid';
  }
}

/**
 * `<submissionId.tag@domain>`, the tag derived from the recipient: every copy of a notification is
 * a message of its own (one Message-ID each, as RFC 5322 asks), and the same on every retry, so a
 * copy sent twice is recognised as one.
 */
export function notificationMessageId(submissionId: string, recipient: string, domain: string): string {
  const tag = createHash('sha256').update(recipient.trim().toLowerCase()).digest('hex').slice(0, 16);
  return `<${submissionId}.${tag}@${domain}>`;
}

/** `<submissionId.autoresponder@domain>`: a submission gets at most one autoresponder, to one address. */
export function autoresponderMessageId(submissionId: string, domain: string): string {
  return `<${submissionId}.autoresponder@${domain}>`;
}

/**
 * `<jobId.email@domain>`, for the emails queued ready to send (account and workspace mail, quota
 * notices, test emails): one job is one message, and its id is kept in the job's row.
 */
export function emailJobMessageId(jobId: string, domain: string): string {
  return `<${jobId}.email@${domain}>`;
}
