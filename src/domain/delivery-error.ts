/**
 * A failed delivery; `permanent` ones are not retried (a 5xx SMTP reply, an HTTP 4xx). A leaf: the
 * mail transport and the safe HTTP client throw it, the job worker reads it.
 */
export class DeliveryError extends Error {
  readonly permanent: boolean;
  readonly statusCode: number | undefined;

  constructor(message: string, options: { permanent: boolean; statusCode?: number; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.name = 'DeliveryError';
    this.permanent = options.permanent;
    this.statusCode = options.statusCode;
  }
}
