/**
 * A `Retry-After` header (RFC 9110 §10.2.3: delay-seconds, or an HTTP-date) as milliseconds from
 * `now`; undefined when absent or unreadable. A date in the past is 0. Shared by the webhook and the
 * chat channels; the worker bounds what it honours (jobs/attempt.ts: the retry policy's `capMs`).
 */
export function retryAfterOf(header: string | null | undefined, now = Date.now()): number | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  // NOTE: an HTTP-date names its day or month in letters; without any, Date.parse would read "-5" or "2026" as a year
  if (!/[a-z]/i.test(value)) return undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
