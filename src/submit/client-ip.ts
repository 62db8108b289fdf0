import type { IncomingMessage } from 'node:http';
import { isIPv4 } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The visitor's address: the socket's peer, or with a trusted proxy in front the first address of
 * `X-Forwarded-For` (the client as the proxy saw it). IPv4-mapped IPv6 is shown as IPv4.
 */
export function clientIp(request: IncomingMessage, trustProxy: boolean): string {
  let address = request.socket.remoteAddress ?? '';
  if (trustProxy) {
    const forwarded = request.headers['x-forwarded-for'];
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
    if (first && ipaddr.isValid(first)) address = first;
  }
  // the socket's own IPv4 address is already in its plain form: the common case skips the parse
  else if (isIPv4(address)) return address;
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) return (parsed as ipaddr.IPv6).toIPv4Address().toString();
  return parsed.toString();
}
