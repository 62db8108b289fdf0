import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isIP } from 'node:net';
import { clip, ProblemError } from '../errors.js';

// `Host: name` or `Host: name:port`, the name a DNS name, an IPv4 address or a bracketed IPv6 one.
const HOST_HEADER = /^(\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(?::\d{1,5})?$/i;

/**
 * Whether a `Host` names this server: the public URL's host name, `localhost`, or an IP address
 * (any port). DNS rebinding needs a name the attacker resolves, so a name of theirs is refused
 * while the machine's own names and addresses (health checks, `curl` on the box) still work.
 */
export function isOwnHost(host: string, publicUrl: string): boolean {
  const match = HOST_HEADER.exec(host);
  if (!match) return false;
  const name = match[1]!.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || isIP(name.replace(/^\[(.*)\]$/, '$1')) !== 0) return true;
  return name === new URL(publicUrl).hostname.replace(/\.$/, '');
}

// `/healthz`, `/metrics` and the dashboard's static files show nothing of any account; the 421 page needs its stylesheet.
function isExempt(url: string): boolean {
  return url === '/healthz' || url.startsWith('/healthz?') || url === '/metrics' || url.startsWith('/metrics?') || url.startsWith('/assets/');
}

/**
 * Refuses, before any route, a request whose `Host` (and `X-Forwarded-Host` from a trusted proxy)
 * is not this server's: `421 misdirected_request`. `/healthz` and `/metrics` are exempt (load balancers,
 * uptime checks and scrapers call them by their own names for the instance), and so are the static `/assets/`.
 * `publicUrl` is read per request: with port 0 it is known only once the server listens.
 */
export function installHostCheck(app: FastifyInstance, publicUrl: () => string): void {
  app.addHook('onRequest', async (request: FastifyRequest) => {
    if (isExempt(request.url)) return;
    const given = request.headers.host;
    // a browser always sends Host; without one (HTTP/1.0) no page of another site can be behind it
    const named = given === undefined ? [] : [given, request.host];
    const stranger = named.find((host) => !isOwnHost(host, publicUrl()));
    if (stranger === undefined) return;
    throw new ProblemError(
      'misdirected_request',
      `This server does not answer to the host "${clip(stranger)}": open it at ${publicUrl()}. (To use another address, its operator sets FORMGATE_PUBLIC_URL to it.)`,
      {
        publicUrl: publicUrl(),
      },
    );
  });
}
