import fs from 'node:fs';
import { ConfigError } from './checks.js';
import { envName } from './env.js';

/** How many connections each surface keeps, and how long a new one may wait before its first request (issue 38, item 7). */
export interface ConnectionLimitsConfig {
  /** Open connections of one surface from one client address (an IPv6 client by its /64); 0: no such cap. Never a trusted proxy's. */
  perAddress: number;
  /** Open connections of one surface in all. */
  total: number;
  /** A new connection that has not sent a whole request's headers by then is closed. */
  firstRequestTimeoutMs: number;
}

export const DEFAULT_CONNECTIONS_PER_ADDRESS = 100;
/** The most connections a surface keeps by default, whatever the file limit allows (memory, then). */
const MOST_CONNECTIONS = 10_000;
/** File descriptors kept aside from connections: the database, Redis, SMTP, files being written, logs. */
const DESCRIPTORS_KEPT = 124;

/**
 * The default of FORMGATE_MAX_CONNECTIONS: what the process's open-file limit leaves, shared by the
 * two surfaces with a fifth spare, so that a flood of connections meets the cap (refused, logged)
 * long before EMFILE (everything unreachable, nothing logged). At the common limit of 1,024: 360.
 */
export function defaultTotalConnections(limitsFile = '/proc/self/limits'): number {
  let openFiles = 1024;
  try {
    const line = /^Max open files\s+(\d+|unlimited)/m.exec(fs.readFileSync(limitsFile, 'utf8'));
    if (line) openFiles = line[1] === 'unlimited' ? Number.MAX_SAFE_INTEGER : Number(line[1]);
  } catch {
    // not Linux: the common limit
  }
  return Math.max(64, Math.min(MOST_CONNECTIONS, Math.floor(((openFiles - DESCRIPTORS_KEPT) / 2) * 0.8)));
}

function count(value: string | undefined, fallback: number, key: 'maxConnections' | 'maxConnectionsPerAddress', least: number): number {
  if (value === undefined || value.trim() === '') return fallback;
  const number = /^\d{1,7}$/.test(value.trim()) ? Number(value.trim()) : NaN;
  if (!(number >= least)) throw new ConfigError(`${envName(key)} must be a whole number of at least ${least}, got "${value}"`);
  return number;
}

/** FORMGATE_MAX_CONNECTIONS, FORMGATE_MAX_CONNECTIONS_PER_ADDRESS and FORMGATE_FIRST_REQUEST_TIMEOUT. */
export function parseConnectionLimits(raw: {
  maxConnections?: string;
  maxConnectionsPerAddress?: string;
  firstRequestTimeout?: string;
}): ConnectionLimitsConfig {
  const timeout = (raw.firstRequestTimeout ?? '10s').trim().toLowerCase();
  const match = /^(\d{1,5})\s*(ms|s)$/.exec(timeout);
  const ms = match ? Number(match[1]) * (match[2] === 's' ? 1000 : 1) : NaN;
  if (!(ms >= 100 && ms <= 120_000))
    throw new ConfigError(`${envName('firstRequestTimeout')} must be a duration from 100ms to 120s such as 10s, got "${raw.firstRequestTimeout}"`);
  return {
    perAddress: count(raw.maxConnectionsPerAddress, DEFAULT_CONNECTIONS_PER_ADDRESS, 'maxConnectionsPerAddress', 0),
    total: count(raw.maxConnections, defaultTotalConnections(), 'maxConnections', 1),
    firstRequestTimeoutMs: ms,
  };
}
