import { DAY_MS } from './time.js';

/** How often a workspace's spam digest goes out. */
export type DigestFrequency = 'daily' | 'weekly' | 'off';

export const DIGEST_FREQUENCIES: readonly DigestFrequency[] = ['daily', 'weekly', 'off'];

/** A workspace that never chose gets the daily digest. */
export const DEFAULT_DIGEST_FREQUENCY: DigestFrequency = 'daily';

/** The time between two digests of a workspace. */
export const DIGEST_PERIOD_MS: Record<Exclude<DigestFrequency, 'off'>, number> = { daily: DAY_MS, weekly: 7 * DAY_MS };

export function isDigestFrequency(value: unknown): value is DigestFrequency {
  return typeof value === 'string' && (DIGEST_FREQUENCIES as readonly string[]).includes(value);
}
