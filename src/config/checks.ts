// Checks of single values that config.ts had taken as they came: each refusal names its variable.
import addressparser from 'nodemailer/lib/addressparser/index.js';
import { envName, type RawEnv } from './env.js';

/** Thrown for a configuration value that cannot be used; the message names the variable. */
export class ConfigError extends Error {}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogFormat = 'json' | 'pretty' | 'auto';

/** pino's level names, and `silent`. */
export function parseLogLevel(value: string | undefined): string {
  if (value === undefined) return 'info';
  const level = value.trim().toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level))
    throw new ConfigError(`${envName('logLevel')} must be one of ${LOG_LEVELS.join(', ')}, got "${value}"`);
  return level;
}

/** `json` or `pretty`; unset: pretty on a terminal, JSON otherwise. */
export function parseLogFormat(value: string | undefined): LogFormat {
  if (value === undefined) return 'auto';
  const format = value.trim().toLowerCase();
  if (format !== 'json' && format !== 'pretty') throw new ConfigError(`${envName('logFormat')} must be json or pretty, got "${value}"`);
  return format;
}

/** A URL of one of `schemes` with a host, or a ConfigError naming the variable and what it expects. */
function schemeUrl(value: string, key: keyof RawEnv, schemes: string[], example: string): string {
  let url: URL | null = null;
  try {
    url = new URL(value.trim());
  } catch {}
  if (!url || !schemes.includes(url.protocol.slice(0, -1)) || url.hostname === '') {
    throw new ConfigError(`${envName(key)} must be a ${schemes.join(' or ')} URL such as ${example}, got "${value}"`);
  }
  return value.trim();
}

export function parseRedisUrl(value: string | undefined): string | null {
  return value === undefined ? null : schemeUrl(value, 'redisUrl', ['redis', 'rediss'], 'redis://127.0.0.1:6379');
}

export function parseSmtpUrl(value: string | undefined): string | null {
  return value === undefined ? null : schemeUrl(value, 'smtpUrl', ['smtp', 'smtps'], 'smtp://user:password@mail.example.com:587');
}

export function parsePostgresUrl(value: string): string {
  return schemeUrl(value, 'databaseUrl', ['postgres', 'postgresql'], 'postgres://formgate:password@127.0.0.1:5432/formgate');
}

/** One address, with or without a display name: `forms@example.com` or `Formgate <forms@example.com>`. */
export function parseMailFrom(value: string | undefined): string {
  if (value === undefined) return 'Formgate <forms@localhost>';
  const parsed = addressparser(value, { flatten: true });
  const address = parsed.length === 1 ? parsed[0]!.address : '';
  if (!/^[^\s@<>]+@[^\s@<>]+$/.test(address)) {
    throw new ConfigError(`${envName('mailFrom')} must be one e-mail address, such as forms@example.com or "Formgate <forms@example.com>", got "${value}"`);
  }
  return value.trim();
}

/** A host to listen on: an IP address or a host name. */
export function parseHost(value: string | undefined): string {
  if (value === undefined) return '127.0.0.1';
  const host = value.trim();
  if (!/^[A-Za-z0-9.:_-]{1,253}$/.test(host))
    throw new ConfigError(`${envName('host')} must be an IP address or host name to listen on, such as 127.0.0.1 or 0.0.0.0, got "${value}"`);
  return host;
}

/** Old secrets still accepted after a rotation: one, or a comma-separated list. */
export function parseSecretPrevious(value: string | undefined): string[] {
  if (value === undefined) return [];
  const secrets = value.split(',').map((secret) => secret.trim());
  if (secrets.some((secret) => secret.length < 32)) {
    throw new ConfigError(`${envName('secretPrevious')} must be one secret or a comma-separated list of them, each at least 32 characters long`);
  }
  return secrets;
}

/** How long a starting instance waits for PostgreSQL and Redis: `60s`, `2m`, or `0` (not at all). */
export function parseStartupWait(value: string | undefined): number {
  if (value === undefined) return 60_000;
  const match = /^(\d{1,4})\s*(s|m)?$/.exec(value.trim().toLowerCase());
  const ms = match ? Number(match[1]) * (match[2] === 'm' ? 60_000 : 1000) : NaN;
  if (!(ms >= 0 && ms <= 3_600_000) || (match?.[2] === undefined && ms !== 0)) {
    throw new ConfigError(`${envName('startupWait')} must be a duration up to 60m such as 60s or 2m, or 0 not to wait, got "${value}"`);
  }
  return ms;
}

/** The drain window's default: longer than the documented health-check interval (1 s), with room for a check's answer. */
export const DEFAULT_DRAIN_WINDOW_MS = 3_000;

/** How long a stopping instance keeps serving while load balancers stop choosing it: `3s`, up to `60s`, or `0` (none). */
export function parseDrainWindow(value: string | undefined): number {
  if (value === undefined) return DEFAULT_DRAIN_WINDOW_MS;
  const match = /^(\d{1,5})\s*(ms|s)?$/.exec(value.trim().toLowerCase());
  const ms = match ? Number(match[1]) * (match[2] === 's' ? 1000 : 1) : NaN;
  if (!(ms >= 0 && ms <= 60_000) || (match?.[2] === undefined && ms !== 0)) {
    throw new ConfigError(`${envName('drainWindow')} must be a duration up to 60s such as 3s or 1500ms, or 0 for none, got "${value}"`);
  }
  return ms;
}

/**
 * The public address is served at the root of its host: the dashboard's links, redirects, assets
 * and cookies (`__Host-` ones must have Path=/) all assume it, and so do the API's base URL and the
 * host check. Supporting a path would touch every page and redirect: refused, saying what to do.
 * (FORMGATE_SUBMIT_URL may have one: every address the submit surface gives out is built from it,
 * so a proxy that strips the path is all it needs.)
 */
export function refusePublicPath(url: string): string {
  const { pathname, search, hash, origin } = new URL(url);
  if (pathname !== '/' || search !== '' || hash !== '') {
    throw new ConfigError(
      `${envName('publicUrl')} must be an address without a path, such as ${origin}, got "${url}": the dashboard and the API are served at the root of their host name. Give Formgate a host name of its own at your proxy (forms.example.com) rather than a folder of another site`,
    );
  }
  return url;
}
