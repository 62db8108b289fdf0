/**
 * A failed delivery; `permanent` ones are not retried (a 5xx SMTP reply, an HTTP 4xx). A leaf: the
 * mail transport and the safe HTTP client throw it, the job worker reads it.
 */
export class DeliveryError extends Error {
  readonly permanent: boolean;
  readonly statusCode: number | undefined;
  /** The receiver asked to be tried again no sooner than this (a 429's Retry-After); the worker waits at least so long. */
  readonly retryAfterMs: number | undefined;

  constructor(message: string, options: { permanent: boolean; statusCode?: number; cause?: unknown; retryAfterMs?: number }) {
    super(message, { cause: options.cause });
    this.name = 'DeliveryError';
    this.permanent = options.permanent;
    this.statusCode = options.statusCode;
    this.retryAfterMs = options.retryAfterMs;
  }
}
