// Who may read /healthz's details (issue 38, item 15): the data paths, the S3 endpoint, the version
// and the errors of each check are for the operator, not for whoever can reach a port.
import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';
import ipaddr from 'ipaddr.js';

/** Headers a reverse proxy adds to what it forwards (nginx, Caddy, Apache, Traefik, load balancers). */
const FORWARDING_HEADERS = ['x-forwarded-for', 'forwarded', 'x-real-ip', 'via'] as const;

/** Compared as digests: equal lengths whatever was sent, so the comparison takes the same time. */
function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * Decides, per request, whether `/healthz` answers its details: to a client on loopback (the
 * client as Formgate sees it after trusted proxies, never the proxy in front: net/client-address.ts)
 * or one that sends the metrics token (`Authorization: Bearer <FORMGATE_METRICS>`). Anyone else
 * gets the status and each check's state.
 */
export class HealthDetailGate {
  private readonly expected: Buffer | null;

  /** `trustsProxies`: FORMGATE_TRUST_PROXY names a proxy (else a forwarded request's peer is the proxy, not its client). */
  constructor(
    metricsToken: string | null,
    private readonly trustsProxies: boolean,
  ) {
    this.expected = metricsToken === null ? null : digest(`Bearer ${metricsToken}`);
  }

  /** `client`: the client's address after trusted proxies; `headers`: the request's. */
  allows(client: string, headers: IncomingHttpHeaders): boolean {
    const authorization = headers.authorization;
    if (this.expected !== null && authorization !== undefined && timingSafeEqual(digest(authorization), this.expected)) return true;
    if (!isLoopback(client)) return false;
    // NOTE: with no proxy trusted, a proxy on this machine makes every visitor a loopback peer; a
    // request it forwarded says so in its headers, and is nobody's on this machine.
    return this.trustsProxies || !FORWARDING_HEADERS.some((name) => headers[name] !== undefined);
  }
}

function isLoopback(address: string): boolean {
  if (isIP(address) === 0) return false;
  return ipaddr.process(address).range() === 'loopback';
}
