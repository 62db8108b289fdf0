/** How often and how late a job whose delivery failed transiently is tried again. */
export interface RetryPolicy {
  /** Tries in all, the first included; the job is failed after the last. */
  maxAttempts: number;
  baseMs: number;
  factor: number;
  capMs: number;
  /**
   * A fixed schedule instead of the exponential one: the wait after the n-th failed try is the n-th
   * entry (give or take `SCHEDULE_JITTER`), and the job fails after as many failed tries as there are
   * entries plus one. `maxAttempts`, `baseMs` and `factor` are then unused; `capMs` still bounds a
   * receiver's Retry-After.
   */
  scheduleMs?: readonly number[];
}

// Tries spread over roughly 1.5 hours on average (3 hours at most): enough to ride out an SMTP
// server's restart or a receiver's short outage without keeping a dead job forever.
export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 10, baseMs: 30_000, factor: 2, capMs: 3_600_000 };

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * Webhooks: the schedule of Standard Webhooks' specification (the one Svix uses, longer): after the
 * first try, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h, so 10 tries over about three
 * days (75.6 hours): a receiver down over a weekend still gets its submissions. A Retry-After is
 * honoured up to a day, the schedule's longest wait (docs/webhooks.md, "Answers and retries").
 */
export const WEBHOOK_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 10,
  baseMs: 5 * SECOND,
  factor: 1,
  capMs: 24 * HOUR,
  scheduleMs: [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 14 * HOUR, 20 * HOUR, 24 * HOUR],
};

/** A scheduled wait is moved by up to this share either way, so jobs failed by one outage do not all come back at once. */
export const SCHEDULE_JITTER = 0.1;

// NOTE: a floor, so that a jitter of ~0 never turns a failing job into a hot loop.
const MIN_DELAY_MS = 1_000;

/** Tries in all before a job of this policy fails for good. */
export function triesAllowed(policy: RetryPolicy): number {
  return policy.scheduleMs ? policy.scheduleMs.length + 1 : policy.maxAttempts;
}

/**
 * The wait before the next try after `attempt` failed tries. Exponential backoff with full jitter
 * (a random point below the exponential ceiling), so that jobs failed by one outage do not all come
 * back at the same moment; or, for a policy with a schedule, its entry, moved by up to SCHEDULE_JITTER.
 */
export function retryDelay(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const schedule = policy.scheduleMs;
  if (schedule && schedule.length > 0) {
    const planned = schedule[Math.min(Math.max(1, attempt), schedule.length) - 1]!;
    return Math.max(MIN_DELAY_MS, Math.round(planned * (1 + SCHEDULE_JITTER * (2 * random() - 1))));
  }
  const ceiling = Math.min(policy.capMs, policy.baseMs * policy.factor ** Math.max(0, attempt - 1));
  return Math.max(MIN_DELAY_MS, Math.round(random() * ceiling));
}
