import { ConfigError } from './checks.js';
import { envName } from './env.js';

/** The outside spam judges' shared settings (issue 40, item 4); each form turns its judges on. */
export interface SpamJudgesConfig {
  /** How long a submission waits for spamd and Akismet together; past it, no points from them. */
  budgetMs: number;
  /** Akismet's REST base (`/comment-check` is appended); a stand-in in tests. */
  akismetUrl: string;
}

export const DEFAULT_SPAM_JUDGES_BUDGET_MS = 1500;
const BUDGET_MIN_MS = 100;
const BUDGET_MAX_MS = 10_000;
export const DEFAULT_AKISMET_URL = 'https://rest.akismet.com/1.1';

/** FORMGATE_SPAM_JUDGES_BUDGET (`1500ms`, `2s`: 100 ms to 10 s) and FORMGATE_AKISMET_URL (http or https). */
export function parseSpamJudges(raw: { spamJudgesBudget?: string; akismetUrl?: string }): SpamJudgesConfig {
  return { budgetMs: parseBudget(raw.spamJudgesBudget), akismetUrl: parseAkismetUrl(raw.akismetUrl) };
}

function parseBudget(value: string | undefined): number {
  if (value === undefined) return DEFAULT_SPAM_JUDGES_BUDGET_MS;
  const match = /^(\d{1,5})\s*(ms|s)$/.exec(value.trim().toLowerCase());
  const ms = match ? Number(match[1]) * (match[2] === 's' ? 1000 : 1) : NaN;
  if (!(ms >= BUDGET_MIN_MS && ms <= BUDGET_MAX_MS)) {
    throw new ConfigError(`${envName('spamJudgesBudget')} must be a duration from 100ms to 10s, such as 1500ms or 2s, got "${value}"`);
  }
  return ms;
}

function parseAkismetUrl(value: string | undefined): string {
  if (value === undefined) return DEFAULT_AKISMET_URL;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new ConfigError(`${envName('akismetUrl')} must be an http or https URL such as ${DEFAULT_AKISMET_URL}, got "${value}"`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password || url.search || url.hash) {
    throw new ConfigError(`${envName('akismetUrl')} must be an http or https URL without credentials, query or fragment, got "${value}"`);
  }
  return url.href.replace(/\/+$/, '');
}
