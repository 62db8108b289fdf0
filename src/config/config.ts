import { parseWebhookAllowList, type WebhookAllowList } from '../net/public-address.js';
import net from 'node:net';
import path from 'node:path';
import { type FilesConfig, parseFilesLocation } from './files-location.js';
import type { CaptchaVerifyUrls } from '../domain/captcha-providers.js';
import { type Plan, PLANS } from '../domain/plans.js';
import { DEFAULT_CAPTCHA_VERIFY_URLS } from '../domain/captcha-providers.js';
import {
  ConfigError,
  type LogFormat,
  parseHost,
  parseLogFormat,
  parseLogLevel,
  parseMailFrom,
  parsePostgresUrl,
  parseRedisUrl,
  parseSecretPrevious,
  parseSmtpUrl,
  parseStartupWait,
  parseDrainWindow,
  refusePublicPath,
} from './checks.js';
import { envName, type RawEnv } from './env.js';
import { type ConnectionLimitsConfig, parseConnectionLimits } from './connections.js';
import { parseSpamJudges, type SpamJudgesConfig } from './spam-judges.js';
import { type OidcEnvironment, parseOidcEnvironment } from './oidc.js';

export { ConfigError } from './checks.js';

/** FORMGATE_WEBHOOK_ALLOW: every entry must read as a network, an address or a host name. */
function parseWebhookAllow(value: string | undefined): { webhookAllow: WebhookAllowList; webhookAllowText: string } {
  const text = value?.trim() ?? '';
  const { allow, problems } = parseWebhookAllowList(text);
  if (problems.length > 0) throw new ConfigError(`${envName('webhookAllow')}: ${problems.join('; ')}`);
  return { webhookAllow: allow, webhookAllowText: text };
}

/** Where SpamAssassin's spamd listens (FORMGATE_SPAMD_URL). */
export interface SpamdAddress {
  host: string;
  port: number;
}

/** spamd's port when FORMGATE_SPAMD_URL names none. */
const SPAMD_DEFAULT_PORT = 783;

export type DatabaseConfig = { dialect: 'sqlite'; file: string } | { dialect: 'postgres'; url: string };

/** A per-IP limit: `max` requests per `windowMs`; null when switched off. */
export type RateLimit = { max: number; windowMs: number } | null;

export interface Config {
  database: DatabaseConfig;
  dataDir: string;
  host: string;
  port: number;
  submitPort: number;
  publicUrl: string;
  /** `{base_url}`: the management API's address, version segment included. */
  baseUrl: string;
  /** `{submit_url}`: where HTML forms post. */
  submitUrl: string;
  secret: string | null;
  /** Secrets signed with before a rotation, still accepted (FORMGATE_SECRET_PREVIOUS); nothing new is signed with them. */
  secretPrevious: string[];
  smtpUrl: string | null;
  mailFrom: string;
  redisUrl: string | null;
  /** Put before every Redis key, so installations sharing one Redis keep their counters apart. */
  redisPrefix: string;
  rateLimitSubmit: RateLimit;
  rateLimitApi: RateLimit;
  /** Failed dashboard logins per account (normalised address), whatever the client. */
  rateLimitLoginAccount: RateLimit;
  /** Failed dashboard logins and reset requests per client IP. */
  rateLimitLoginAddress: RateLimit;
  /** Searches per caller (token, session) and per client IP, on the API and the dashboard. */
  rateLimitSearch: RateLimit;
  /** Exports and erasures (previews too) per account, on the API and the dashboard (issue 38). */
  rateLimitExports: RateLimit;
  /** Which proxies in front may say who the client is (`X-Forwarded-For`): see net/client-address.ts. */
  trustProxy: TrustProxy;
  allowPrivateWebhooks: boolean;
  /** FORMGATE_WEBHOOK_ALLOW: private networks and host names webhooks may reach, with the admin page's list. */
  webhookAllow: WebhookAllowList;
  /** The same, as written (the admin page shows it). */
  webhookAllowText: string;
  logLevel: string;
  /** `auto`: pretty on a terminal, JSON otherwise. */
  logFormat: LogFormat;
  /** How long a starting instance retries a PostgreSQL or Redis that does not answer yet; 0: not at all. */
  startupWaitMs: number;
  /** Caps on each surface's connections, and the wait for a new one's first request (web/connection-limits.ts). */
  connections: ConnectionLimitsConfig;
  /** Quarantined spam is purged this long after it arrived. */
  spamRetentionMs: number;
  /** Finished deliveries (jobs, their tries, written .eml files) are removed this long after they finished; null: kept forever. */
  deliveryRetentionMs: number | null;
  /** Audit events are removed this long after they were recorded; null: kept forever (FORMGATE_AUDIT_RETENTION_DAYS). */
  auditRetentionMs: number | null;
  /** Where uploaded files go (FORMGATE_FILES): a folder, by default `files/` beside the SQLite database (or in the data folder), or an S3-compatible bucket. */
  files: FilesConfig;
  /** Each captcha provider's verify endpoint (stand-in servers in tests). */
  captchaVerifyUrls: CaptchaVerifyUrls;
  /** Slack's Web API base (`…/chat.postMessage` is appended); a stand-in in tests. */
  slackApiUrl: string;
  /** Telegram's Bot API base (`/bot<token>/sendMessage` is appended); a stand-in in tests. */
  telegramApiUrl: string;
  /** The destinations' service APIs (the real services unless a stand-in is configured); listmonk's is each owner's own server. */
  destinationApis: DestinationApis;
  /** SpamAssassin's spamd, asked on every autoresponder write and by the forms that ask SpamAssassin; null: the built-in rules alone. */
  spamd: SpamdAddress | null;
  /** The outside spam judges' budget and Akismet's address; spamd's is `spamd` (issue 40, item 4). */
  spamJudges: SpamJudgesConfig;
  /** Who may sign up on the dashboard once the first account (the instance admin) exists. */
  signup: SignupMode;
  /** The plan of every new workspace. */
  defaultPlan: Plan;
  /** FORMGATE_DEFAULT_PLAN is set: plans apply whatever the admin page's "how is it used" says. */
  defaultPlanFromEnvironment: boolean;
  /** A dashboard session unused this long ends. */
  sessionIdleMs: number;
  /** A dashboard session ends this long after login. */
  sessionMaxAgeMs: number;
  /** How long a delivery worker's claim holds a job unless renewed: a crashed instance's jobs are taken over after it. */
  deliveryLeaseMs: number;
  /** Notification addresses outside a workspace's team must confirm by emailed link before they get notifications. */
  confirmRecipients: boolean;
  /** `GET /metrics` on the dashboard's port: off (404), open, or behind a bearer token. */
  metrics: MetricsAccess;
  /** FORMGATE_DELIVERIES=paused: no delivery leaves this instance, whatever the database's switch says. */
  deliveriesPaused: boolean;
  /** Single sign-on as FORMGATE_OIDC_* set it; the admin page's /admin/sign-in fills in the rest (services/oidc-settings.ts). */
  oidc: OidcEnvironment;
  /** On SIGTERM, how long the instance keeps serving with /healthz at 503 `stopping` before it closes its listeners; 0: none. */
  drainWindowMs: number;
}

const DELIVERY_MODES = ['on', 'paused'] as const;

/** FORMGATE_METRICS: `off`, `on`, or the bearer token a scraper must send. */
export type MetricsAccess = { enabled: false } | { enabled: true; token: string | null };
const METRICS_TOKEN_MIN_LENGTH = 16;

/**
 * The proxies trusted to append the client's address to `X-Forwarded-For`: the nearest `hops` of
 * them whatever their address (0: none, the connection's peer is the client), or those whose
 * address is in `addresses` (IPs, CIDRs, or proxy-addr's names `loopback`, `linklocal`, `uniquelocal`).
 */
export type TrustProxy = { hops: number } | { addresses: string[] };

export type SignupMode = 'invite' | 'open' | 'closed';
const SIGNUP_MODES: readonly SignupMode[] = ['invite', 'open', 'closed'];

export const API_PREFIX = '/public/v1';

const DEFAULT_RATE_LIMIT_API = '600/1m';
const DEFAULT_RATE_LIMIT_SUBMIT = '30/1m';
const DEFAULT_RATE_LIMIT_LOGIN_ACCOUNT = '10/15m';
const DEFAULT_RATE_LIMIT_LOGIN_ADDRESS = '50/15m';
const DEFAULT_RATE_LIMIT_SEARCH = '120/1m';
const DEFAULT_RATE_LIMIT_EXPORTS = '60/1h';
const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses `N/window` (`60/1m`, `10/30s`, `1000/1h`) or `off`. */
export function parseRateLimit(value: string, variable: string): RateLimit {
  if (value.trim().toLowerCase() === 'off') return null;
  const match = /^\s*(\d+)\s*\/\s*(\d*)\s*([smh])\s*$/.exec(value);
  if (!match) throw new ConfigError(`${variable} must look like 60/1m (or 10/30s, 1000/1h) or be "off", got "${value}"`);
  const max = Number(match[1]);
  const count = match[2] === '' ? 1 : Number(match[2]);
  if (max < 1 || count < 1) throw new ConfigError(`${variable} needs a count and a window of at least 1, got "${value}"`);
  return { max, windowMs: count * UNITS[match[3]!]! };
}

function parsePort(value: string | undefined, fallback: number, key: keyof RawEnv): number {
  if (value === undefined) return fallback;
  const port = /^\d{1,5}$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(port) || port > 65535) {
    throw new ConfigError(`${envName(key)} must be a port number 0..65535, got "${value}"`);
  }
  return port;
}

/** A value that is neither off nor on is a token: one too short to be secret is a mistake (`yes`, `true`), said at start. */
function parseMetrics(value: string | undefined): MetricsAccess {
  const trimmed = value?.trim() ?? 'off';
  if (trimmed === '' || trimmed.toLowerCase() === 'off') return { enabled: false };
  if (trimmed.toLowerCase() === 'on') return { enabled: true, token: null };
  if (trimmed.length < METRICS_TOKEN_MIN_LENGTH || /\s/.test(trimmed))
    throw new ConfigError(
      `${envName('metrics')} must be off, on, or a bearer token of at least ${METRICS_TOKEN_MIN_LENGTH} characters without spaces (e.g. \`openssl rand -hex 24\`), got a value of ${trimmed.length}`,
    );
  return { enabled: true, token: trimmed };
}

function parseFlag(value: string | undefined, key: keyof RawEnv): boolean {
  if (value === undefined) return false;
  const v = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new ConfigError(`${envName(key)} must be true or false, got "${value}"`);
}

const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);
const MAX_PROXY_HOPS = 16;

/**
 * `FORMGATE_TRUST_PROXY`: `false` (the default), `true` (one hop), a number of hops, or a
 * comma-separated list of the proxies' addresses and CIDRs (`10.0.0.0/8, ::1`).
 */
export function parseTrustProxy(value: string | undefined): TrustProxy {
  if (value === undefined) return { hops: 0 };
  const text = value.trim().toLowerCase();
  const fail = (why: string) =>
    new ConfigError(
      `${envName('trustProxy')} must be true, false, a number of proxy hops (1 to ${MAX_PROXY_HOPS}) or a comma-separated list of the proxies' addresses and CIDRs (such as 10.0.0.0/8, ::1); ${why}, got "${value}"`,
    );
  if (['0', 'false', 'no', 'off'].includes(text)) return { hops: 0 };
  if (['true', 'yes', 'on'].includes(text)) return { hops: 1 };
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    if (hops > MAX_PROXY_HOPS) throw fail(`${hops} hops is more than any real chain of proxies`);
    return { hops };
  }
  const addresses = text.split(',').map((entry) => entry.trim());
  for (const entry of addresses) {
    if (entry === '') throw fail('an entry of the list is empty');
    if (/\/0+$/.test(entry)) throw fail(`"${entry}" would trust every client`);
    if (!PROXY_RANGE_NAMES.has(entry) && !isProxyAddress(entry)) throw fail(`"${entry}" is not an IP address or CIDR`);
  }
  return { addresses };
}

/** An IP address in its usual notation (no `10` for 0.0.0.10), with an optional prefix length that is not 0 (which would trust everyone). */
function isProxyAddress(entry: string): boolean {
  const [address = '', prefix, ...more] = entry.split('/');
  const family = net.isIP(address);
  if (family === 0 || more.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) >= 1 && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * Where the destinations' services are called (FORMGATE_AIRTABLE_API_URL and the others): the real
 * services by default, stand-ins in tests. Mailchimp's null: each key's data centre
 * (`https://<dc>.api.mailchimp.com`).
 */
export interface DestinationApis {
  airtable: string;
  notion: string;
  googleSheets: string;
  googleOauthToken: string;
  brevo: string;
  mailchimp: string | null;
}

function parseUrl(value: string, key: keyof RawEnv): string {
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme');
    return url.toString().replace(/\/+$/, '');
  } catch {
    throw new ConfigError(`${envName(key)} must be an http(s) URL, got "${value}"`);
  }
}

/** A duration such as `30m`, `12h` or `14d`, at least a minute. */
function parseDuration(value: string | undefined, fallback: string, key: keyof RawEnv): number {
  const text = (value ?? fallback).trim().toLowerCase();
  const match = /^(\d{1,6})\s*([mhd])$/.exec(text);
  if (!match || Number(match[1]) < 1) throw new ConfigError(`${envName(key)} must be a duration such as 30m, 12h or 14d, got "${value}"`);
  return Number(match[1]) * UNITS[match[2]!]!;
}

/**
 * The delivery lease: `30s`, `2m`, between 5 seconds and 10 minutes. Its heartbeat renews it every
 * third of it, so a shorter one would lose jobs under way to a brief stall of a busy process.
 */
export function parseDeliveryLease(value: string | undefined): number {
  if (value === undefined) return 30_000;
  const match = /^(\d{1,4})\s*([sm])$/.exec(value.trim().toLowerCase());
  const ms = match ? Number(match[1]) * UNITS[match[2]!]! : NaN;
  if (!(ms >= 5_000 && ms <= 600_000)) {
    throw new ConfigError(`${envName('deliveryLease')} must be a duration from 5s to 10m, such as 30s or 2m, got "${value}"`);
  }
  return ms;
}

function parseChoice<T extends string>(value: string | undefined, choices: readonly T[], fallback: T, key: keyof RawEnv, upper = false): T {
  if (value === undefined) return fallback;
  const text = upper ? value.trim().toUpperCase() : value.trim().toLowerCase();
  if (!(choices as readonly string[]).includes(text)) throw new ConfigError(`${envName(key)} must be one of ${choices.join(', ')}, got "${value}"`);
  return text as T;
}

function parseDays(value: string | undefined, fallback: number, key: keyof RawEnv): number {
  if (value === undefined) return fallback;
  const days = /^\d{1,5}$/.test(value.trim()) ? Number(value) : NaN;
  if (!(days >= 1)) throw new ConfigError(`${envName(key)} must be a whole number of days, at least 1, got "${value}"`);
  return days;
}

/** Days as ms, or null (kept forever) for `0` or `off`: an operator may have to keep records longer than any default. */
function parseRetention(value: string | undefined, fallback: number, key: keyof RawEnv): number | null {
  const text = value?.trim().toLowerCase();
  if (text === 'off' || text === '0') return null;
  if (value !== undefined && !/^\d{1,5}$/.test(value.trim()))
    throw new ConfigError(`${envName(key)} must be a whole number of days, or 0 or off to keep them forever, got "${value}"`);
  return parseDays(value, fallback, key) * 86_400_000;
}

/** `spamd://host:port` or `host:port` (IPv6 in brackets); the port is 783 when left out. */
export function parseSpamdUrl(value: string | undefined): SpamdAddress | null {
  if (value === undefined) return null;
  const fail = () => new ConfigError(`${envName('spamdUrl')} must be spamd://host:port or host:port (port 783 when left out), got "${value}"`);
  const text = value.trim();
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:/i.test(text) && !/^[^:/]+:\d+$/.test(text) ? text : `spamd://${text}`);
  } catch {
    throw fail();
  }
  if (url.protocol !== 'spamd:' || url.username || url.password || url.pathname || url.search || url.hash) throw fail();
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (!(net.isIPv6(host) ? url.hostname.startsWith('[') : /^[A-Za-z0-9_]([A-Za-z0-9_.-]*[A-Za-z0-9_])?$/.test(host))) throw fail();
  const port = url.port === '' ? SPAMD_DEFAULT_PORT : Number(url.port);
  if (!(port >= 1 && port <= 65535)) throw fail();
  return { host, port };
}

/** 1 to 64 printable characters without spaces; `formgate:` by default. */
export function parseRedisPrefix(value: string | undefined): string {
  if (value === undefined) return 'formgate:';
  if (!/^[\x21-\x7e]{1,64}$/.test(value)) {
    throw new ConfigError(`${envName('redisPrefix')} must be 1 to 64 printable characters without spaces, got "${value}"`);
  }
  return value;
}

function parseDatabase(value: string | undefined, dataDir: string): DatabaseConfig {
  if (value === undefined) return { dialect: 'sqlite', file: path.join(dataDir, 'formgate.db') };
  if (value.startsWith('postgres://') || value.startsWith('postgresql://')) return { dialect: 'postgres', url: parsePostgresUrl(value) };
  if (value.startsWith('sqlite:')) {
    const file = value.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (file === '') throw new ConfigError(`${envName('databaseUrl')} names no file: "${value}"`);
    return { dialect: 'sqlite', file };
  }
  throw new ConfigError(`${envName('databaseUrl')} must start with sqlite: or postgres://, got "${value}"`);
}

function parseFiles(value: string | undefined, dataDir: string, databaseUrl: string | undefined): FilesConfig {
  const database = parseDatabase(databaseUrl, dataDir);
  // beside the database file, as the outbox is: one folder to back up and move with it
  const besideDatabase = database.dialect === 'sqlite' && database.file !== ':memory:' ? path.dirname(path.resolve(database.file)) : dataDir;
  try {
    return parseFilesLocation(value, path.join(besideDatabase, 'files'));
  } catch (error) {
    throw new ConfigError(`${envName('files')} ${(error as Error).message}`);
  }
}

function sessionLimits(raw: RawEnv): { sessionIdleMs: number; sessionMaxAgeMs: number } {
  const sessionIdleMs = parseDuration(raw.sessionIdleTimeout, '7d', 'sessionIdleTimeout');
  const sessionMaxAgeMs = parseDuration(raw.sessionMaxAge, '30d', 'sessionMaxAge');
  if (sessionIdleMs > sessionMaxAgeMs) {
    throw new ConfigError(`${envName('sessionIdleTimeout')} must not be longer than ${envName('sessionMaxAge')}`);
  }
  return { sessionIdleMs, sessionMaxAgeMs };
}

function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '::') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

/** Turns the raw environment into a checked, typed configuration. */
export function buildConfig(raw: RawEnv): Config {
  const dataDir = path.resolve(raw.dataDir ?? './data');
  const host = parseHost(raw.host);
  const port = parsePort(raw.port, 8080, 'port');
  const submitPort = parsePort(raw.submitPort, 8081, 'submitPort');
  const publicUrl = raw.publicUrl ? refusePublicPath(parseUrl(raw.publicUrl, 'publicUrl')) : `http://${hostForUrl(host)}:${port}`;
  const submitUrl = raw.submitUrl ? parseUrl(raw.submitUrl, 'submitUrl') : `http://${hostForUrl(host)}:${submitPort}`;
  if (raw.secret !== undefined && raw.secret.length < 32) {
    throw new ConfigError(`${envName('secret')} must be at least 32 characters long`);
  }
  return {
    database: parseDatabase(raw.databaseUrl, dataDir),
    dataDir,
    host,
    port,
    submitPort,
    publicUrl,
    baseUrl: publicUrl + API_PREFIX,
    submitUrl,
    secret: raw.secret ?? null,
    secretPrevious: parseSecretPrevious(raw.secretPrevious),
    smtpUrl: parseSmtpUrl(raw.smtpUrl),
    mailFrom: parseMailFrom(raw.mailFrom),
    redisUrl: parseRedisUrl(raw.redisUrl),
    redisPrefix: parseRedisPrefix(raw.redisPrefix),
    rateLimitSubmit: parseRateLimit(raw.rateLimitSubmit ?? DEFAULT_RATE_LIMIT_SUBMIT, envName('rateLimitSubmit')),
    rateLimitApi: parseRateLimit(raw.rateLimitApi ?? DEFAULT_RATE_LIMIT_API, envName('rateLimitApi')),
    rateLimitLoginAccount: parseRateLimit(raw.rateLimitLoginAccount ?? DEFAULT_RATE_LIMIT_LOGIN_ACCOUNT, envName('rateLimitLoginAccount')),
    rateLimitLoginAddress: parseRateLimit(raw.rateLimitLoginAddress ?? DEFAULT_RATE_LIMIT_LOGIN_ADDRESS, envName('rateLimitLoginAddress')),
    rateLimitSearch: parseRateLimit(raw.rateLimitSearch ?? DEFAULT_RATE_LIMIT_SEARCH, envName('rateLimitSearch')),
    rateLimitExports: parseRateLimit(raw.rateLimitExports ?? DEFAULT_RATE_LIMIT_EXPORTS, envName('rateLimitExports')),
    trustProxy: parseTrustProxy(raw.trustProxy),
    allowPrivateWebhooks: parseFlag(raw.allowPrivateWebhooks, 'allowPrivateWebhooks'),
    ...parseWebhookAllow(raw.webhookAllow),
    logLevel: parseLogLevel(raw.logLevel),
    logFormat: parseLogFormat(raw.logFormat),
    startupWaitMs: parseStartupWait(raw.startupWait),
    drainWindowMs: parseDrainWindow(raw.drainWindow),
    connections: parseConnectionLimits(raw),
    spamRetentionMs: parseDays(raw.spamRetentionDays, 30, 'spamRetentionDays') * 86_400_000,
    deliveryRetentionMs: parseRetention(raw.deliveryRetentionDays, 30, 'deliveryRetentionDays'),
    // `forever` says it in words; 0 and off mean the same, as for the other retention variables
    auditRetentionMs: parseRetention(raw.auditRetentionDays?.trim().toLowerCase() === 'forever' ? 'off' : raw.auditRetentionDays, 365, 'auditRetentionDays'),
    slackApiUrl: raw.slackApiUrl ? parseUrl(raw.slackApiUrl, 'slackApiUrl') : 'https://slack.com/api',
    telegramApiUrl: raw.telegramApiUrl ? parseUrl(raw.telegramApiUrl, 'telegramApiUrl') : 'https://api.telegram.org',
    destinationApis: {
      airtable: raw.airtableApiUrl ? parseUrl(raw.airtableApiUrl, 'airtableApiUrl') : 'https://api.airtable.com',
      notion: raw.notionApiUrl ? parseUrl(raw.notionApiUrl, 'notionApiUrl') : 'https://api.notion.com',
      googleSheets: raw.googleSheetsApiUrl ? parseUrl(raw.googleSheetsApiUrl, 'googleSheetsApiUrl') : 'https://sheets.googleapis.com',
      googleOauthToken: raw.googleOauthTokenUrl ? parseUrl(raw.googleOauthTokenUrl, 'googleOauthTokenUrl') : 'https://oauth2.googleapis.com/token',
      brevo: raw.brevoApiUrl ? parseUrl(raw.brevoApiUrl, 'brevoApiUrl') : 'https://api.brevo.com',
      mailchimp: raw.mailchimpApiUrl ? parseUrl(raw.mailchimpApiUrl, 'mailchimpApiUrl') : null,
    },
    spamd: parseSpamdUrl(raw.spamdUrl),
    spamJudges: parseSpamJudges(raw),
    oidc: parseOidcEnvironment(raw),
    signup: parseChoice(raw.signup, SIGNUP_MODES, 'invite', 'signup'),
    defaultPlan: parseChoice(raw.defaultPlan?.trim() || undefined, PLANS, 'FREE', 'defaultPlan', true),
    defaultPlanFromEnvironment: (raw.defaultPlan?.trim() ?? '') !== '',
    ...sessionLimits(raw),
    deliveryLeaseMs: parseDeliveryLease(raw.deliveryLease),
    confirmRecipients: raw.confirmRecipients === undefined ? true : parseFlag(raw.confirmRecipients, 'confirmRecipients'),
    metrics: parseMetrics(raw.metrics),
    files: parseFiles(raw.files, dataDir, raw.databaseUrl),
    deliveriesPaused: parseChoice(raw.deliveries, DELIVERY_MODES, 'on', 'deliveries') === 'paused',
    captchaVerifyUrls: {
      BOTPOISON: raw.botpoisonVerifyUrl ? parseUrl(raw.botpoisonVerifyUrl, 'botpoisonVerifyUrl') : DEFAULT_CAPTCHA_VERIFY_URLS.BOTPOISON,
      GOOGLE_RECAPTCHA_V2: raw.recaptchaVerifyUrl ? parseUrl(raw.recaptchaVerifyUrl, 'recaptchaVerifyUrl') : DEFAULT_CAPTCHA_VERIFY_URLS.GOOGLE_RECAPTCHA_V2,
      HCAPTCHA: raw.hcaptchaVerifyUrl ? parseUrl(raw.hcaptchaVerifyUrl, 'hcaptchaVerifyUrl') : DEFAULT_CAPTCHA_VERIFY_URLS.HCAPTCHA,
      TURNSTILE: raw.turnstileVerifyUrl ? parseUrl(raw.turnstileVerifyUrl, 'turnstileVerifyUrl') : DEFAULT_CAPTCHA_VERIFY_URLS.TURNSTILE,
    },
  };
}

/**
 * Redis is there to share counters between instances; with an SQLite database, each instance that
 * runs on another machine or volume writes its own file, and a load balancer splits the
 * submissions between them (issue 38). One instance with Redis is legitimate, so this is a warning.
 */
export function redisOnSqliteWarning(config: Pick<Config, 'database' | 'redisUrl'>): string | null {
  if (config.redisUrl === null || config.database.dialect !== 'sqlite' || config.database.file === ':memory:') return null;
  const file = path.resolve(config.database.file);
  return (
    `FORMGATE_REDIS_URL is set, as for several instances, but the database is the SQLite file ${file}: ` +
    'SQLite serves one instance, and instances started elsewhere (another machine, container or volume) each write a file of their own, so a load balancer splits the submissions between them. ' +
    'Several instances need PostgreSQL (FORMGATE_DATABASE_URL=postgres://…); with one instance, ignore this'
  );
}
