import { type MembershipRule, parseMembershipRules } from '../domain/membership-rules.js';
import { ConfigError } from './checks.js';
import { envName, type RawEnv } from './env.js';

/**
 * Single sign-on as the environment sets it (FORMGATE_OIDC_*): each value set here wins over the
 * admin page's, which shows it as set by the environment. Null: not set here.
 */
export interface OidcEnvironment {
  issuer: string | null;
  clientId: string | null;
  clientSecret: string | null;
  /** The provider's name on the login page's button: "Sign in with <name>". */
  name: string | null;
  /** Whether a first sign-in with no account makes one. */
  signup: boolean | null;
  /** Single sign-on only: passwords off for everyone but the instance admins. */
  only: boolean | null;
  rules: MembershipRule[] | null;
}

type OidcRaw = Pick<RawEnv, 'oidcIssuer' | 'oidcClientId' | 'oidcClientSecret' | 'oidcName' | 'oidcSignup' | 'oidcOnly' | 'oidcMembership'>;

/** FORMGATE_OIDC_*: each checked as the admin page checks it, so a mistake stops the start. */
export function parseOidcEnvironment(raw: OidcRaw): OidcEnvironment {
  const issuer = raw.oidcIssuer === undefined ? null : oidcIssuerOrThrow(raw.oidcIssuer, (why) => new ConfigError(`${envName('oidcIssuer')} ${why}`));
  let rules: MembershipRule[] | null = null;
  if (raw.oidcMembership !== undefined) {
    const parsed = parseMembershipRules(raw.oidcMembership);
    if (parsed.problems.length > 0) throw new ConfigError(`${envName('oidcMembership')}: ${parsed.problems.join('; ')}`);
    rules = parsed.rules;
  }
  return {
    issuer,
    clientId: text(raw.oidcClientId, 'oidcClientId', 500),
    clientSecret: text(raw.oidcClientSecret, 'oidcClientSecret', 2000),
    name: text(raw.oidcName, 'oidcName', 60),
    signup: flag(raw.oidcSignup, 'oidcSignup'),
    only: flag(raw.oidcOnly, 'oidcOnly'),
    rules,
  };
}

/**
 * An issuer URL: https, or http on this machine only (a provider for development and tests), with
 * no query or fragment. Answers it without a trailing slash unless it had one: the issuer must
 * match the provider's own spelling exactly.
 */
export function oidcIssuerOrThrow(value: string, fail: (why: string) => Error): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw fail(`must be the provider's issuer URL, such as https://sso.example.com/realms/main, got "${value}"`);
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) throw fail(`must be an https URL (http only for localhost), got "${value}"`);
  if (url.search || url.hash || url.username || url.password) throw fail(`must have no query, fragment or credentials, got "${value}"`);
  return value.trim();
}

/** Whether an issuer URL may be asked over http (on this machine). */
export function isLoopbackIssuer(issuer: string): boolean {
  const url = new URL(issuer);
  return url.protocol === 'http:';
}

function text(value: string | undefined, key: keyof RawEnv, max: number): string | null {
  if (value === undefined) return null;
  const trimmed = value.trim();
  if (trimmed.length > max) throw new ConfigError(`${envName(key)} must be at most ${max} characters, got ${trimmed.length}`);
  return trimmed;
}

function flag(value: string | undefined, key: keyof RawEnv): boolean | null {
  if (value === undefined) return null;
  const v = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new ConfigError(`${envName(key)} must be on or off, got "${value}"`);
}
