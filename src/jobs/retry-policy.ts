/** How often and how late a job whose delivery failed transiently is tried again. */
export interface RetryPolicy {
  /** Tries in all, the first included; the job is failed after the last. */
  maxAttempts: number;
  baseMs: number;
  factor: number;
  capMs: number;
}

// Tries spread over roughly 1.5 hours on average (3 hours at most): enough to ride out an SMTP
// server's restart or a receiver's short outage without keeping a dead job forever.
export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 10, baseMs: 30_000, factor: 2, capMs: 3_600_000 };

// NOTE: a floor, so that a jitter of ~0 never turns a failing job into a hot loop.
const MIN_DELAY_MS = 1_000;

/**
 * The wait before the next try after `attempt` failed tries: exponential backoff with full jitter
 * (a random point below the exponential ceiling), so that jobs failed by one outage do not all
 * come back at the same moment.
 */
export function retryDelay(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.capMs, policy.baseMs * policy.factor ** Math.max(0, attempt - 1));
  return Math.max(MIN_DELAY_MS, Math.round(random() * ceiling));
}
