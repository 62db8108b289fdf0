import type { WebhookAllowList } from '../../net/public-address.js';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { SingleFlight } from '../../db/single-flight.js';
import { postJsonSafely, type HostLookup } from '../../net/safe-http.js';
import { DeliveryError } from '../../domain/delivery-error.js';
import { withFileLinks } from '../../domain/file-values.js';
import type { Channel, Job } from './channel.js';
import type { DeliveryFiles } from './submission-files.js';

export const WEBHOOK_KIND = 'webhook';

/** What a 'webhook' job carries: where to post, and the submitted fields as one flat object. */
export interface WebhookPayload {
  url: string;
  formId: string;
  fields: Record<string, unknown>;
}

export interface WebhookChannelOptions {
  /** The form's Standard Webhooks secret (`whsec_…`). */
  signingSecret: (formId: string) => Promise<string>;
  /** FORMGATE_ALLOW_PRIVATE_WEBHOOKS: let webhooks reach loopback and private addresses (tests only). */
  allowPrivate: boolean;
  /** The private networks and hosts the owner allowed, read at each send (a cached setting). */
  allow?: () => WebhookAllowList;
  timeoutMs?: number;
  /** For tests: resolve host names without DNS. */
  lookup?: HostLookup;
  /**
   * The submission's files, whose objects get a signed link made at send time in place of the
   * management API's address. Absent (tests of the transport alone): the fields are posted as queued.
   */
  files?: DeliveryFiles;
  /** For tests: the moment the signature (and the files' links) are made. */
  now?: () => Date;
}

export const WEBHOOK_USER_AGENT = 'Formgate-Webhook/1';

/** Posts 'webhook' jobs, signed per Standard Webhooks, to a URL checked against SSRF at call time. */
export class WebhookChannel implements Channel {
  // Jobs of one form run side by side; they share one lookup of its secret while it runs.
  private readonly secrets: SingleFlight<string>;

  constructor(private readonly options: WebhookChannelOptions) {
    this.secrets = new SingleFlight(options.signingSecret);
  }

  async send(job: Job): Promise<void> {
    const payload = job.payload as Partial<WebhookPayload> | null;
    if (!payload || typeof payload.url !== 'string' || typeof payload.formId !== 'string' || typeof payload.fields !== 'object' || payload.fields === null) {
      throw new DeliveryError('the webhook job has no url, formId or fields', { permanent: true });
    }
    const secret = await this.secrets.get(payload.formId);
    const timestamp = (this.options.now ?? (() => new Date()))();
    const body = JSON.stringify(await this.withSignedFileLinks(job, payload.fields as Record<string, unknown>, timestamp));
    let signature: string;
    try {
      // NOTE: the id is the submission's idempotency key, so a receiver drops the duplicates that at-least-once delivery brings.
      signature = new Webhook(secret).sign(job.idempotencyKey, timestamp, body);
    } catch (err) {
      throw new DeliveryError(`the form's webhook secret is unusable: ${(err as Error).message}`, { permanent: true, cause: err });
    }
    const headers = {
      'content-type': 'application/json',
      'user-agent': WEBHOOK_USER_AGENT,
      'webhook-id': job.idempotencyKey,
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': signature,
    };
    const { status } = await postJsonSafely(payload.url, body, headers, {
      allowPrivate: this.options.allowPrivate,
      allow: this.options.allow?.(),
      timeoutMs: this.options.timeoutMs,
      lookup: this.options.lookup,
    });
    throwUnlessDelivered(status);
  }

  /**
   * The fields with each of the submission's files linked for 7 days from now, so that a receiver
   * fetches it without a token; what the body is signed over. Fields naming no file are unchanged.
   */
  private async withSignedFileLinks(job: Job, fields: Record<string, unknown>, now: Date): Promise<Record<string, unknown>> {
    const files = this.options.files;
    if (!files) return fields;
    const stored = await files.of(job.submissionId, fields);
    return withFileLinks(fields, stored, (file) => files.signedUrl(file, now.getTime()));
  }
}

/** 2xx is delivered; 408, 429 and 5xx may pass on a later try; other 4xx and any 3xx will not. */
export function throwUnlessDelivered(status: number): void {
  if (status >= 200 && status < 300) return;
  if (status >= 300 && status < 400)
    throw new DeliveryError(`the webhook answered ${status}: redirects are not followed, point the form at the final URL`, {
      permanent: true,
      statusCode: status,
    });
  const transient = status === 408 || status === 429 || status >= 500;
  throw new DeliveryError(`the webhook answered ${status}`, { permanent: !transient, statusCode: status });
}

/** A new Standard Webhooks signing secret for a form: `whsec_` and 32 random bytes in base64. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}
