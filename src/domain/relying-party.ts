import { isIP } from 'node:net';

/** Who passkeys are made for: the WebAuthn relying party, from the public URL. */
export interface RelyingParty {
  /** The host name (no port): a passkey works on this name and its subdomains. */
  id: string;
  /** The origin every ceremony must come from: the public URL's scheme, host and port. */
  origin: string;
}

/**
 * The relying party of `FORMGATE_PUBLIC_URL`, or why passkeys cannot work there: browsers make
 * them only for a domain name (never an IP address), in a secure context (https, or localhost).
 */
export function relyingPartyOf(publicUrl: string): RelyingParty | { unavailable: string } {
  const url = new URL(publicUrl);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) !== 0) {
    return { unavailable: `Passkeys need the dashboard at a domain name; FORMGATE_PUBLIC_URL is an IP address (${url.origin}).` };
  }
  const local = host === 'localhost' || host.endsWith('.localhost');
  if (url.protocol !== 'https:' && !local) {
    return { unavailable: `Passkeys need the dashboard on HTTPS; FORMGATE_PUBLIC_URL is ${url.origin}.` };
  }
  return { id: host, origin: url.origin };
}
