import proxyAddr from '@fastify/proxy-addr';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { TrustProxy } from '../config/config.js';

/** Whether the address at position `hop` (0: the connection's peer, then `X-Forwarded-For` from its right end) is a trusted proxy. */
export type ProxyTrust = (address: string, hop: number) => boolean;

const compiled = new WeakMap<TrustProxy, ProxyTrust>();

/**
 * The setting as the function both surfaces give to proxy-addr (the package Fastify's `trustProxy`
 * uses), so the dashboard, the API and the submit surface agree on every client's address.
 * NOTE: Fastify reads a bare number of hops as "trust nobody"; a function keeps its meaning.
 */
export function proxyTrust(setting: TrustProxy): ProxyTrust {
  let trust = compiled.get(setting);
  if (!trust) {
    trust = 'addresses' in setting ? proxyAddr.compile(setting.addresses) : hopsTrust(setting.hops);
    compiled.set(setting, trust);
  }
  return trust;
}

function hopsTrust(hops: number): ProxyTrust {
  return (_address, hop) => hop < hops;
}

/** Whether any proxy is trusted at all (else `X-Forwarded-*` headers are never read). */
export function trustsProxies(setting: TrustProxy): boolean {
  return !('hops' in setting && setting.hops === 0);
}

/**
 * The client's address: walking from the connection's peer leftwards through `X-Forwarded-For`,
 * the first address that is not a trusted proxy. The entries left of it were written by the client
 * (nginx's `$proxy_add_x_forwarded_for` keeps what the client sent), so they are never read.
 */
export function clientIp(request: IncomingMessage, setting: TrustProxy): string {
  if (!trustsProxies(setting)) return normaliseAddress(request.socket.remoteAddress ?? '');
  return normaliseAddress(proxyAddr(request, proxyTrust(setting)));
}

/** One spelling per address: IPv4-mapped IPv6 (`::ffff:203.0.113.7`) as IPv4, IPv6 in its short lower-case form. */
export function normaliseAddress(address: string): string {
  // an IPv4 address is already in its plain form (the common case skips the parse); what is not an address stays as it is
  if (isIP(address) !== 6) return address;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) return (parsed as ipaddr.IPv6).toIPv4Address().toString();
  return parsed.toString();
}

/**
 * What an operator should hear at start: a number of hops trusts whatever connects, so a client
 * reaching Formgate directly (not through the proxy) could name its own address. Null when the
 * setting cannot be abused that way (no proxy, a list of proxies, or listening on loopback only).
 */
export function proxyTrustWarning(setting: TrustProxy, host: string): string | null {
  if (!('hops' in setting) || setting.hops === 0 || isLoopback(host)) return null;
  return `FORMGATE_TRUST_PROXY trusts the nearest ${setting.hops === 1 ? 'proxy whatever its address' : `${setting.hops} proxies whatever their addresses`}, and Formgate listens on ${host}: let nobody but the proxy reach its ports, or set FORMGATE_TRUST_PROXY to the proxies' addresses`;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || (isIP(host) !== 0 && ipaddr.process(host).range() === 'loopback');
}
