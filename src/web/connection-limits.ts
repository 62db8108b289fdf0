// Bounds on the connections each surface keeps (issue 38, item 7): 1,100 idle sockets from one
// client used to take both surfaces past a 1,024 file limit, with nothing logged.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type { ConnectionLimitsConfig } from '../config/connections.js';
import type { Metrics } from '../metrics/metrics.js';
import { normaliseAddress } from '../net/client-address.js';
import { visitorKey } from '../intake/rate-limit.js';

/** At most one warning a minute per surface and cap; the metric counts every refusal. */
export const REFUSAL_LOG_INTERVAL_MS = 60_000;

type Surface = 'api' | 'submit';
type Reason = 'per_address' | 'total';

export interface ConnectionLimitOptions {
  surface: Surface;
  limits: ConnectionLimitsConfig;
  log: Logger;
  metrics: Metrics | null;
  /** Whether a peer is a trusted proxy (FORMGATE_TRUST_PROXY): one client carrying everyone's requests, never capped as one visitor. */
  isTrustedProxy: (address: string) => boolean;
}

/**
 * Caps one server's connections: in all (Node's `maxConnections`, which closes the socket before
 * any byte is read), and per client address (an IPv6 client by its /64, as the rate limits count
 * it); a connection over either cap is closed at once. A new connection that has not sent a whole
 * request's headers within the first-request timeout is closed: Node's own `headersTimeout` is
 * checked only every 30 s, so an idle socket lived 58–88 s. Kept-alive connections between
 * requests are left to `keepAliveTimeout` (connection-drain.ts: it must outlive a proxy's pool).
 * A refusal is logged at `warn` at most once a minute per cap, with how many were refused since.
 */
export function limitConnections(server: Server, options: ConnectionLimitOptions): void {
  const { surface, limits, log, metrics } = options;
  const open = new Map<string, number>();
  const lastLogged: Record<Reason, number> = { per_address: Number.NEGATIVE_INFINITY, total: Number.NEGATIVE_INFINITY };
  const unlogged: Record<Reason, number> = { per_address: 0, total: 0 };

  const refused = (reason: Reason, address: string | undefined) => {
    metrics?.connectionRefused(surface, reason);
    unlogged[reason]++;
    const now = performance.now();
    if (now - lastLogged[reason] < REFUSAL_LOG_INTERVAL_MS) return;
    const cap = reason === 'total' ? limits.total : limits.perAddress;
    const variable = reason === 'total' ? 'FORMGATE_MAX_CONNECTIONS' : 'FORMGATE_MAX_CONNECTIONS_PER_ADDRESS';
    log.warn(
      { surface, reason, cap, refused: unlogged[reason], ...(address ? { ip: address } : {}) },
      `refused connections to the ${surface === 'api' ? 'dashboard and API' : 'submit surface'}: ${cap} open ${reason === 'total' ? 'in all' : 'from one address'} (${variable}); said at most once a minute`,
    );
    lastLogged[reason] = now;
    unlogged[reason] = 0;
  };

  server.maxConnections = limits.total;
  server.on('drop', (data?: { remoteAddress?: string }) => refused('total', data?.remoteAddress ? normaliseAddress(data.remoteAddress) : undefined));

  // first of the 'connection' listeners: a refused socket is destroyed before the drain and the HTTP parser see it
  server.prependListener('connection', (socket: Socket) => {
    const address = normaliseAddress(socket.remoteAddress ?? '');
    if (limits.perAddress > 0 && address !== '' && !options.isTrustedProxy(address)) {
      const key = visitorKey(address);
      const count = open.get(key) ?? 0;
      if (count >= limits.perAddress) {
        socket.destroy();
        refused('per_address', address);
        return;
      }
      open.set(key, count + 1);
      socket.once('close', () => {
        const left = (open.get(key) ?? 1) - 1;
        if (left === 0) open.delete(key);
        else open.set(key, left);
      });
    }
    const timer = setTimeout(() => {
      metrics?.connectionClosedIdle(surface);
      socket.destroy();
    }, limits.firstRequestTimeoutMs);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
    firstRequests.set(socket, timer);
  });
  // a whole request's headers: the connection is in use (what follows is requestTimeout's and keepAliveTimeout's)
  server.prependListener('request', (request) => {
    const timer = firstRequests.get(request.socket);
    if (timer === undefined) return;
    clearTimeout(timer);
    firstRequests.delete(request.socket);
  });
}

const firstRequests = new WeakMap<Socket, NodeJS.Timeout>();
