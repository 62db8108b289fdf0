import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { SingleFlight } from '../../db/single-flight.js';
import DataLoader from 'dataloader';
import { DeliveryError } from '../../domain/delivery-error.js';
import { withFileLinks } from '../../domain/file-values.js';
import { DEFAULT_WEBHOOK_BODY, WEBHOOK_BODY_CONTENT_TYPES, type WebhookBody } from '../../domain/webhook-body.js';
import { sharedTemplateWorkers, type TemplateWorkers } from '../../mail/template-workers.js';
import type { OutboundGuard } from '../../net/outbound-guard.js';
import { retryAfterOf } from '../../net/retry-after.js';
import type { Channel, DeliveryReceipt, Job } from './channel.js';
import type { DeliveryFiles } from './submission-files.js';

export const WEBHOOK_KIND = 'webhook';

/**
 * How long a receiver has to answer: Standard Webhooks recommends 15 to 30 s; the least of them, as
 * a receiver that hangs holds its share of the webhook lane's slots that long (docs/webhooks.md).
 */
export const WEBHOOK_TIMEOUT_MS = 15_000;

/** What a 'webhook' job carries: where it was to be posted when queued, and the submitted fields as one flat object. */
export interface WebhookPayload {
  /** The form's webhook URL when the job was queued; each try goes to the form's URL at that moment (WebhookEndpoint). */
  url: string;
  formId: string;
  fields: Record<string, unknown>;
}

/** A form's webhook as it is when a try is made. */
export interface WebhookEndpoint {
  formId: string;
  url: string | null;
  /** Turned off after its receiver answered 410 Gone (when, and why); null while on. */
  disabledAt: number | null;
  disabledReason: string | null;
  /** What its body is made of (migration 0039): absent, the flat JSON fields. */
  body?: WebhookBody;
}

/** The receiver answered 410 Gone at `url`: it wants no more webhooks from this form. */
export interface WebhookGone {
  formId: string;
  url: string;
  at: number;
}

export interface WebhookChannelOptions {
  /** The form's Standard Webhooks secret (`whsec_…`). */
  signingSecret: (formId: string) => Promise<string>;
  /** The one gate of owner-chosen addresses: public ones, and those the allow list names (read at each send). */
  outbound: OutboundGuard;
  timeoutMs?: number;
  /**
   * The submission's files, whose objects get a signed link made at send time in place of the
   * management API's address. Absent (tests of the transport alone): the fields are posted as queued.
   */
  files?: DeliveryFiles;
  /** For tests: the moment the signature (and the files' links) are made. */
  now?: () => Date;
  /**
   * The form's webhook as it is now, read at each try: a retry goes to the address the owner set
   * since, a removed or turned-off webhook sends nothing. Absent (a test webhook, tests of the
   * transport alone): the job's own `url`. A form not among the answers is gone.
   */
  endpoints?: (formIds: readonly string[]) => Promise<WebhookEndpoint[]>;
  /** Told when a receiver answers 410 Gone: turns the form's webhook off and tells its owners. */
  gone?: (gone: WebhookGone) => Promise<void>;
  /** The body's format and template without `endpoints` (a test webhook); absent: the flat JSON fields. */
  body?: WebhookBody;
  /** Where body templates render (tests pass their own). */
  renderer?: TemplateWorkers;
}

export const WEBHOOK_USER_AGENT = 'Formgate-Webhook/1';

/** Posts 'webhook' jobs, signed per Standard Webhooks, to a URL checked against SSRF at call time. */
export class WebhookChannel implements Channel {
  // Jobs of one form run side by side; they share one lookup of its secret while it runs.
  private readonly secrets: SingleFlight<string>;

  // The jobs of a claim start together: their forms' webhooks are read in one go, nothing kept after.
  private readonly endpoints: DataLoader<string, WebhookEndpoint | undefined>;

  constructor(private readonly options: WebhookChannelOptions) {
    this.secrets = new SingleFlight(options.signingSecret);
    const read = options.endpoints;
    this.endpoints = new DataLoader(
      async (formIds) => {
        const found = new Map((read ? await read(formIds) : []).map((endpoint) => [endpoint.formId, endpoint]));
        return formIds.map((id) => found.get(id));
      },
      { cache: false },
    );
  }

  async send(job: Job): Promise<DeliveryReceipt> {
    const payload = job.payload as Partial<WebhookPayload> | null;
    if (!payload || typeof payload.url !== 'string' || typeof payload.formId !== 'string' || typeof payload.fields !== 'object' || payload.fields === null) {
      throw new DeliveryError('the webhook job has no url, formId or fields', { permanent: true });
    }
    const { url, body } = await this.current(payload.formId, payload.url);
    try {
      return await this.post(job, { ...payload, url } as WebhookPayload, body);
    } catch (err) {
      // the log says where each try went: the form's address at that moment
      if (err instanceof DeliveryError) throw err.target === undefined ? err.at(url) : err;
      throw new DeliveryError(err instanceof Error ? err.message : String(err), { permanent: false, cause: err, target: url });
    }
  }

  /** The address this try goes to and its body's shape: the form's webhook now, or why nothing is sent. */
  private async current(formId: string, queuedUrl: string): Promise<{ url: string; body: WebhookBody }> {
    if (!this.options.endpoints) return { url: queuedUrl, body: this.options.body ?? DEFAULT_WEBHOOK_BODY };
    const endpoint = await this.endpoints.load(formId);
    if (!endpoint) throw new DeliveryError('the form is gone', { permanent: true });
    if (endpoint.url === null) throw new DeliveryError('not sent: the form has no webhook URL any more', { permanent: true });
    if (endpoint.disabledAt !== null) {
      const why = endpoint.disabledReason ? ` (${endpoint.disabledReason})` : '';
      throw new DeliveryError(
        `not sent: the form’s webhook is turned off${why}; save the webhook settings on the form’s Settings page to turn it on again, then retry`,
        { permanent: true, target: endpoint.url },
      );
    }
    return { url: endpoint.url, body: endpoint.body ?? DEFAULT_WEBHOOK_BODY };
  }

  private async post(job: Job, payload: WebhookPayload, shape: WebhookBody): Promise<DeliveryReceipt> {
    const secret = await this.secrets.get(payload.formId);
    const timestamp = (this.options.now ?? (() => new Date()))();
    const fields = await this.withSignedFileLinks(job, payload.fields as Record<string, unknown>, timestamp);
    // NOTE: the bytes signed are the bytes sent: a template's body is made once, here, and never re-serialised
    const body = await webhookBodyText(shape, fields, this.options.renderer ?? sharedTemplateWorkers());
    let signature: string;
    try {
      // NOTE: the id is the submission's idempotency key, so a receiver drops the duplicates that at-least-once delivery brings.
      signature = new Webhook(secret).sign(job.idempotencyKey, timestamp, body);
    } catch (err) {
      throw new DeliveryError(`the form's webhook secret is unusable: ${(err as Error).message}`, { permanent: true, cause: err });
    }
    const headers = {
      'content-type': WEBHOOK_BODY_CONTENT_TYPES[shape.format],
      'user-agent': WEBHOOK_USER_AGENT,
      'webhook-id': job.idempotencyKey,
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': signature,
    };
    const answer = await this.options.outbound.post(payload.url, body, headers, { timeoutMs: this.options.timeoutMs ?? WEBHOOK_TIMEOUT_MS });
    if (answer.status === 410 && this.options.gone) {
      await this.options.gone({ formId: payload.formId, url: payload.url, at: timestamp.getTime() });
      throw new DeliveryError(`${GONE_MESSAGE}, so the form’s webhook is turned off`, { permanent: true, statusCode: 410 });
    }
    throwUnlessDelivered(answer.status, answer.retryAfter, timestamp.getTime());
    // the delivery log shows the receiver's answer of a try that went through too, and where it went
    return { statusCode: answer.status, target: payload.url };
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

/**
 * The body of one try: the fields as one flat JSON object (the spec's), or the form's template
 * rendered with them on the template workers (`data`: the fields, files with their signed links). A
 * template that cannot make a body for this submission (it no longer compiles, the body is not valid
 * JSON or not name=value pairs, it outgrows 1 MiB) fails the delivery for good: a retry renders the
 * same. One stopped by the safety net (the machine was busy) is tried again later.
 */
export async function webhookBodyText(shape: WebhookBody, fields: Record<string, unknown>, renderer: TemplateWorkers): Promise<string> {
  if (shape.format === 'json' || shape.template === null) return JSON.stringify(fields);
  const outcome = await renderer.renderBody(shape.template, fields, shape.format === 'json-template' ? 'json' : 'urlencoded');
  if (outcome.ok) return outcome.text;
  const why = outcome.problem === 'invalid' ? outcome.errors[0] : outcome.message;
  throw new DeliveryError(
    `the webhook body template could not make this submission’s body: ${why}; fix it on the form’s Settings page (Webhook body), then retry`,
    {
      permanent: outcome.problem !== 'too_slow',
    },
  );
}

const GONE_MESSAGE = 'the webhook answered 410 Gone: the receiver wants no more webhooks';

/**
 * 2xx is delivered; 408, 429 and 5xx may pass on a later try, no sooner than a `Retry-After` asks;
 * 410 Gone, other 4xx and any 3xx will not (a 410 also turns the form's webhook off: WebhookGone).
 */
export function throwUnlessDelivered(status: number, retryAfter: string | null = null, now = Date.now()): void {
  if (status >= 200 && status < 300) return;
  if (status >= 300 && status < 400)
    throw new DeliveryError(`the webhook answered ${status}: redirects are not followed, point the form at the final URL`, {
      permanent: true,
      statusCode: status,
    });
  if (status === 410)
    // a delivery's 410 also turns the webhook off (WebhookChannel.post says so); a test's does not
    throw new DeliveryError(GONE_MESSAGE, { permanent: true, statusCode: status });
  const transient = status === 408 || status === 429 || status >= 500;
  const retryAfterMs = transient ? retryAfterOf(retryAfter, now) : undefined;
  const asked = retryAfterMs === undefined ? '' : ` (Retry-After: asked to wait ${Math.ceil(retryAfterMs / 1000)} s)`;
  throw new DeliveryError(`the webhook answered ${status}${asked}`, { permanent: !transient, statusCode: status, retryAfterMs });
}

/** A new Standard Webhooks signing secret for a form: `whsec_` and 32 random bytes in base64. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}
