import ipaddr from 'ipaddr.js';

/**
 * Whether an IP address is a public unicast address. Everything else is refused as a webhook
 * target: loopback, private, link-local, CGNAT, multicast, reserved, unspecified, and IPv6 forms
 * that embed an IPv4 address (mapped, 6to4, Teredo, NAT64), which could smuggle a private one.
 */
export function isPublicAddress(address: string): boolean {
  let parsed = parseAddress(address);
  if (!parsed) return false;
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) parsed = v6.toIPv4Address();
    // ::a.b.c.d, the deprecated IPv4-compatible form (ipaddr.js calls it unicast)
    else if (v6.parts.slice(0, 6).every((part) => part === 0)) return false;
  }
  return parsed.range() === 'unicast';
}

/**
 * The write-time check of a webhook URL: http or https, and not a literal non-public address or a
 * localhost name. Host names are resolved and checked again when the webhook is called.
 * Returns the problem, or null when the URL is acceptable.
 */
export function webhookUrlProblem(value: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must use http or https';
  if (url.username || url.password) return 'must not carry credentials';
  if (allowPrivate) return null;
  // WHATWG URL parsing already normalised odd IPv4 spellings (0x7f.1, 2130706433) to dotted form.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isLocalhostName(host)) return 'must not point at localhost';
  if (ipaddr.isValid(host) && !isPublicAddress(host)) return 'must not point at a loopback, private, link-local or otherwise non-public address';
  return null;
}

/**
 * Parses a valid address as the operating system reads it. ipaddr.js reads an IPv6 address ending in
 * dotted IPv4 after `::` as IPv4-mapped (`::1.2.3.4` as `::ffff:1.2.3.4`), so an IPv4-compatible
 * address passed as public when its IPv4 part was; WHATWG URL parsing gets it right (`::102:304`).
 */
function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (!ipaddr.isValid(address)) return null;
  if (!address.includes(':') || !address.includes('.')) return ipaddr.parse(address);
  const [bare = address, zone] = address.split('%', 2);
  if (!URL.canParse(`http://[${bare}]/`)) return null;
  const hex = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  return ipaddr.parse(zone === undefined ? hex : `${hex}%${zone}`);
}

/**
 * Whether a host name is `localhost` or under it (`a.localhost`), in any case, with or without the
 * final dot: names that always mean this machine (RFC 6761), whatever a resolver says of them.
 */
export function isLocalhostName(hostname: string): boolean {
  const name = hostname.replace(/\.$/, '').toLowerCase();
  return name === 'localhost' || name.endsWith('.localhost');
}

// ipaddr.js range names, as an operator reads them in a refusal.
const RANGE_LABELS: Record<string, string> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT (100.64.0.0/10)',
  private: 'private',
  reserved: 'reserved',
  uniqueLocal: 'unique local (fc00::/7)',
  rfc6052: 'NAT64 (an IPv6 form embedding an IPv4 address)',
  '6to4': '6to4 (an IPv6 form embedding an IPv4 address)',
  teredo: 'Teredo (an IPv6 form embedding an IPv4 address)',
  rfc6145: 'IPv4-translated (an IPv6 form embedding an IPv4 address)',
  deprecatedSiteLocal: 'site-local',
  benchmarking: 'benchmarking',
  discard: 'discard-only',
};

/**
 * Names the class of a non-public address for a refusal message ("loopback", "private", …), or
 * returns null for a public one. Decides exactly as isPublicAddress does.
 */
export function nonPublicAddressClass(address: string): string | null {
  if (isPublicAddress(address)) return null;
  const parsed = parseAddress(address);
  if (!parsed) return 'invalid';
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return `IPv4-mapped ${labelOf(v6.toIPv4Address().range())}`;
    if (v6.parts.slice(0, 6).every((part) => part === 0) && v6.range() === 'unicast') return 'IPv4-compatible (deprecated ::a.b.c.d)';
  }
  return labelOf(parsed.range());
}

function labelOf(range: string): string {
  return RANGE_LABELS[range] ?? range;
}
