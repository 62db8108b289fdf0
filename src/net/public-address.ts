import ipaddr from 'ipaddr.js';
import { NOT_PUBLIC_PHRASE } from '../domain/delivery-error.js';

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
 * localhost name, unless the owner allowed it (`allow`: the admin page's list and
 * FORMGATE_WEBHOOK_ALLOW). Host names are resolved and checked again when the webhook is called
 * (connectProblem).
 * Returns the problem, or null when the URL is acceptable.
 */
export function webhookUrlProblem(value: string, allowPrivate: boolean, allow: WebhookAllowList = NO_ALLOWED_TARGETS): string | null {
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
  if (isAllowedHost(host, allow)) return null;
  if (isLocalhostName(host)) return `must not point at localhost; ${ALLOW_HINT}`;
  if (ipaddr.isValid(host) && !isPublicAddress(host) && !inAllowedNetwork(host, allow)) {
    return `must not point at a loopback, private, link-local or otherwise non-public address; ${ALLOW_HINT}`;
  }
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

/** What a refusal of a private target tells the person: where the owner can allow it. */
export const ALLOW_HINT = 'to call a service on your own network, allow it on the admin page (Webhooks to private networks) or in FORMGATE_WEBHOOK_ALLOW';

/**
 * Private networks and host names the owner lets webhooks (and the other outgoing channels) reach:
 * the admin page's setting and FORMGATE_WEBHOOK_ALLOW, combined.
 */
export interface WebhookAllowList {
  networks: readonly { address: ipaddr.IPv4 | ipaddr.IPv6; prefix: number; text: string }[];
  /** Lower case, without a final dot. */
  hosts: readonly string[];
}

export const NO_ALLOWED_TARGETS: WebhookAllowList = { networks: [], hosts: [] };

const HOST_NAME = /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/**
 * Reads an allow list written as CIDRs (`192.168.1.0/24`, `fd00::/8`), single addresses (a /32 or
 * /128) and host names, separated by commas, spaces or lines. Answers the list and one problem per
 * entry it could not read; a caller refuses the whole list when there is any.
 */
export function parseWebhookAllowList(text: string): { allow: WebhookAllowList; problems: string[] } {
  const networks: WebhookAllowList['networks'][number][] = [];
  const hosts: string[] = [];
  const problems: string[] = [];
  for (const entry of text.split(/[\s,]+/).filter((e) => e !== '')) {
    if (entry.includes('/')) {
      const [base = '', bits = ''] = entry.split('/', 2);
      const address = ipaddr.isValid(base) ? ipaddr.parse(base) : null;
      const max = address?.kind() === 'ipv6' ? 128 : 32;
      if (!address) problems.push(`"${entry.slice(0, 60)}": ${base.slice(0, 60)} is not an IPv4 or IPv6 address`);
      else if (!/^\d{1,3}$/.test(bits) || Number(bits) > max) problems.push(`"${entry.slice(0, 60)}": the prefix length must be 0 to ${max}`);
      else networks.push({ address, prefix: Number(bits), text: entry });
    } else if (ipaddr.isValid(entry.replace(/^\[(.*)\]$/, '$1'))) {
      const address = ipaddr.parse(entry.replace(/^\[(.*)\]$/, '$1'));
      networks.push({ address, prefix: address.kind() === 'ipv6' ? 128 : 32, text: entry });
    } else {
      const name = entry.replace(/\.$/, '').toLowerCase();
      if (HOST_NAME.test(name) && !/^[\d.]+$/.test(name)) hosts.push(name);
      else problems.push(`"${entry.slice(0, 60)}" is neither a network (192.168.1.0/24, fd00::/8), an address nor a host name`);
    }
  }
  return { allow: { networks, hosts }, problems };
}

/** Both lists in one (the admin page's and the environment's). */
export function combineAllowLists(a: WebhookAllowList, b: WebhookAllowList): WebhookAllowList {
  return { networks: [...a.networks, ...b.networks], hosts: [...new Set([...a.hosts, ...b.hosts])] };
}

function isAllowedHost(hostname: string, allow: WebhookAllowList): boolean {
  return allow.hosts.includes(hostname.replace(/\.$/, '').toLowerCase());
}

/** Whether the address sits inside one of the listed networks (an IPv4-mapped IPv6 address counts as its IPv4 one). */
export function inAllowedNetwork(address: string, allow: WebhookAllowList): boolean {
  if (allow.networks.length === 0) return false;
  let parsed = parseAddress(address);
  if (!parsed) return false;
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return allow.networks.some((n) => n.address.kind() === parsed.kind() && parsed.match(n.address, n.prefix));
}

// What a listed host name may resolve to: the private networks of a LAN, never loopback, link-local
// (169.254.169.254 is the cloud's metadata service) or the other special ranges.
const LAN_RANGES = new Set(['private', 'uniqueLocal']);

/**
 * The connect-time check of one address a host resolved to, or null when it may be called: a public
 * address; one inside an allowed network, whatever name led to it; or, for an allowed host name, a
 * private LAN address (10/8, 172.16/12, 192.168/16, fc00::/7). So a listed name whose DNS answer
 * changes (rebinding) still reaches only the LAN, never this machine or the metadata service: list a
 * loopback network (127.0.0.1/32) to reach a service on the same machine.
 */
export function connectProblem(address: string, hostname: string, allow: WebhookAllowList = NO_ALLOWED_TARGETS): string | null {
  const kind = nonPublicAddressClass(address);
  if (kind === null || inAllowedNetwork(address, allow)) return null;
  if (isAllowedHost(hostname, allow)) {
    const parsed = parseAddress(address);
    if (parsed && LAN_RANGES.has(parsed.range())) return null;
  }
  const via = address === hostname ? '' : ` (${hostname} resolves to ${address})`;
  return `${address} is a ${kind} address, ${NOT_PUBLIC_PHRASE}${via}; ${ALLOW_HINT}`;
}
