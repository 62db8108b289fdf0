import { DAY_MS } from '../../domain/time.js';

/**
 * A form's submissions of one day (UTC), counted as they are written: `accepted` counts every
 * submission that is not spam (held ones too: they arrived), `spam` the quarantined ones. Deleting a
 * submission does not uncount it; "Not spam" moves it from one count to the other.
 */
export interface DailyCountTable {
  formId: string;
  workspaceId: string;
  /** Days since 1970-01-01 (UTC). */
  day: number;
  accepted: number;
  spam: number;
  /** When the day's newest submission arrived (epoch ms): the form's last submission is its newest day's. */
  lastAt: number;
}

/**
 * A form's unread submissions (accepted and not yet opened): the inbox's "Submissions 12". Kept by
 * triggers on `submissions` (migration 0045), never written by the program; `formgate repair-counts`
 * mends it. A form with none may have no row.
 */
export interface UnreadCountTable {
  formId: string;
  n: number;
}

/** The day (UTC) an epoch-ms time falls on, as `daily_counts` numbers it. */
export function dayOf(ms: number): number {
  return Math.floor(ms / DAY_MS);
}
