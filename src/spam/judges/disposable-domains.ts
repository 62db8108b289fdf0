import { disposableEmailBlocklist } from 'disposable-email-domains-js';
import type { Finding } from '../score-rules.js';

/** Points for an address at a disposable e-mail service: a hint, as some people use one on purpose. */
export const DISPOSABLE_POINTS = 4;
// A domain has at most 127 labels; more is not an address.
const MAX_LABELS = 127;

let domains: Set<string> | null = null;

/** The list (npm `disposable-email-domains-js`, CC0), read into a Set at its first use: about 9,000 domains. */
function disposableDomains(): Set<string> {
  domains ??= new Set(disposableEmailBlocklist().map((domain) => domain.toLowerCase()));
  return domains;
}

/** Whether the address's domain, or a domain it is under (`x.mailinator.com`), is a disposable e-mail service's. */
export function isDisposableAddress(address: string): boolean {
  const at = address.lastIndexOf('@');
  if (at < 0) return false;
  const labels = address
    .slice(at + 1)
    .toLowerCase()
    .replace(/\.$/, '')
    .split('.');
  if (labels.length > MAX_LABELS) return false;
  const list = disposableDomains();
  // one lookup per label, of a domain of at most 253 characters (the address was checked): bounded
  for (let i = 0; i < labels.length - 1; i++) if (list.has(labels.slice(i).join('.'))) return true;
  return false;
}

/** The disposable-address signal: no address, no finding. */
export function disposableFindings(address: string | null): Finding[] {
  return address !== null && isDisposableAddress(address) ? [{ points: DISPOSABLE_POINTS, reason: 'disposable e-mail address' }] : [];
}
