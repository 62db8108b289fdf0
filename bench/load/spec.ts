/** What the load process is asked to do and what it answers (shared by the runner and bench/load/cannon.ts). */

/** What to send: one request (rotated over `paths`), or a list walk that follows `nextCursor`. */
export interface LoadSpec {
  origin: string;
  connections: number;
  durationSec: number;
  warmupSec: number;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  /** Each connection cycles through these paths in order. */
  paths: string[];
  body?: string;
  /** `[<id>]` in the body becomes a fresh id per request (distinct submissions, as real visitors send). */
  uniqueBodies?: boolean;
  /** Walk a list: each connection starts at `paths[0]` and follows `nextCursor` for up to this many pages. */
  followCursorPages?: number;
}

export interface LoadFigures {
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** Connection errors, timeouts and answers other than 2xx. */
  errors: number;
  answered2xx: number;
  /** 2xx answers during the warm-up (not in the figures, but stored all the same). */
  warmup2xx: number;
  durationSec: number;
  statusCodes: Record<string, number>;
}
