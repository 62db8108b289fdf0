import { isIP } from 'node:net';

/**
 * A failed delivery; `permanent` ones are not retried (a 5xx SMTP reply, an HTTP 4xx). A leaf: the
 * mail transport and the safe HTTP client throw it, the job worker reads it.
 */
export class DeliveryError extends Error {
  readonly permanent: boolean;
  readonly statusCode: number | undefined;
  /** The receiver asked to be tried again no sooner than this (a 429's Retry-After); the worker waits at least so long. */
  readonly retryAfterMs: number | undefined;
  /** Not sent by the workspace's own rule (an address that has not confirmed): no fault, logged once an hour per address. */
  readonly withheldFrom: string | undefined;
  /** Where the try went, when the channel read it at send time (a webhook's current URL): the delivery log shows it. */
  readonly target: string | undefined;

  constructor(
    message: string,
    options: { permanent: boolean; statusCode?: number; cause?: unknown; retryAfterMs?: number; withheldFrom?: string; target?: string },
  ) {
    super(message, { cause: options.cause });
    this.name = 'DeliveryError';
    this.permanent = options.permanent;
    this.statusCode = options.statusCode;
    this.retryAfterMs = options.retryAfterMs;
    this.withheldFrom = options.withheldFrom;
    this.target = options.target;
  }

  /** The same failure, saying where the try went. */
  at(target: string): DeliveryError {
    const { permanent, statusCode, retryAfterMs, withheldFrom } = this;
    return new DeliveryError(this.message, { permanent, statusCode, retryAfterMs, withheldFrom, target, cause: this.cause });
  }
}

/** What a refusal of a non-public target says of itself (net/public-address.ts writes it). */
export const NOT_PUBLIC_PHRASE = 'not a public one';
/** What the refusal of a localhost name says of itself (net/safe-http.ts writes it). */
export const LOCALHOST_NAME_PHRASE = 'always means a loopback address';
/** The start of an SMTP failure on the instance's own mail server (connection, TLS, login): the operator's to fix. */
export const MAIL_SERVER_FAILED = "the instance's mail server did not take the message";

/** What a tenant of a hosting instance reads for a refused private target: nothing about the network behind it. */
export const PRIVATE_TARGET_FOR_TENANTS = 'refused: the target address is private; deliveries go to public addresses only';

const IPV4 = /\b(?:\d{1,3}\.){3}\d{1,3}\b/g;
// an IPv6 literal with at least two colons (so no time of day), as Node and the SSRF check write them
const IPV6 = /(?<![\w:.])(?:[0-9a-f]{0,4}:){2,7}[0-9a-f]{0,4}(?:%\w+)?(?![\w:])/gi;

/**
 * A delivery's error as a workspace's members read it (issue 38, item 16). On a hosting instance
 * they are strangers to its network: a refused private target says only that it is private, a
 * failure of the instance's own mail server only that (its host, address and words are the
 * admin's), and any non-public address in an error becomes "a private address". In team mode the
 * members are the operator's own team, and read what the admin reads. `isPublic` says whether an
 * address is a public one (net/public-address.ts).
 */
export function deliveryErrorForMembers(error: string | null, usage: 'team' | 'hosting', isPublic: (address: string) => boolean): string | null {
  if (error === null || usage === 'team') return error;
  // a chat channel's or the webhook's refusal keeps its service's name ("Slack: refused: …")
  const refusedAt = error.indexOf('refused: ');
  if (refusedAt !== -1 && (error.includes(NOT_PUBLIC_PHRASE) || error.includes(LOCALHOST_NAME_PHRASE)))
    return error.slice(0, refusedAt) + PRIVATE_TARGET_FOR_TENANTS;
  if (error.startsWith(`SMTP: ${MAIL_SERVER_FAILED}`)) return `SMTP: ${MAIL_SERVER_FAILED} (the administrator's logs say why)`;
  const hide = (candidate: string) => {
    const address = candidate.replace(/%\w+$/, '');
    return isIP(address) === 0 || isPublic(address) ? candidate : 'a private address';
  };
  return error.replace(IPV4, hide).replace(IPV6, hide);
}
