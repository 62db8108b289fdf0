// A form's webhook body (issue 42, item 5): the flat JSON of the spec (the default), or a body written
// with the templates' placeholders, as JSON or as a form post (docs/webhooks.md, Body templates).

/** `json`: the fields as one flat JSON object (the spec's); the others render the form's template. */
export const WEBHOOK_BODY_FORMATS = ['json', 'json-template', 'urlencoded-template'] as const;
export type WebhookBodyFormat = (typeof WEBHOOK_BODY_FORMATS)[number];

/** The most characters a body template may hold: a request body, not an email. */
export const WEBHOOK_BODY_TEMPLATE_MAX = 16_384;

/** A form's body setting as the webhook reads it: the default is `{ format: 'json', template: null }`. */
export interface WebhookBody {
  format: WebhookBodyFormat;
  /** The template of `json-template` and `urlencoded-template`; null for `json`. */
  template: string | null;
}

export const DEFAULT_WEBHOOK_BODY: WebhookBody = { format: 'json', template: null };

/** The content type each format is posted with. */
export const WEBHOOK_BODY_CONTENT_TYPES: Record<WebhookBodyFormat, string> = {
  json: 'application/json',
  'json-template': 'application/json',
  'urlencoded-template': 'application/x-www-form-urlencoded',
};

export function isWebhookBodyFormat(value: unknown): value is WebhookBodyFormat {
  return typeof value === 'string' && (WEBHOOK_BODY_FORMATS as readonly string[]).includes(value);
}

/** A stored setting as the webhook reads it: an unknown format or a template format without a template is the default. */
export function webhookBodyOf(row: { webhookBodyFormat: string | null; webhookBodyTemplate: string | null }): WebhookBody {
  const format = row.webhookBodyFormat;
  if (!isWebhookBodyFormat(format) || format === 'json' || !row.webhookBodyTemplate) return DEFAULT_WEBHOOK_BODY;
  return { format, template: row.webhookBodyTemplate };
}

/** A rendered body made ready to send, or why it cannot be (one sentence). */
export type FinishedBody = { ok: true; body: string } | { ok: false; error: string };

// what a JSON.parse message quotes of the body: kept short in a delivery log
const JSON_MESSAGE_MAX = 200;

/**
 * A rendered template as the body it is sent as. JSON: checked to parse, and sent as rendered (its
 * bytes are what is signed). A form body: `name=value` pairs separated by `&` or line breaks, each
 * pair needing a name; it is sent with the pairs joined by `&`, written as a form post encodes them.
 */
export function finishWebhookBody(format: 'json-template' | 'urlencoded-template', rendered: string): FinishedBody {
  if (format === 'json-template') {
    if (rendered.trim() === '') return { ok: false, error: 'the body is empty, not JSON' };
    try {
      JSON.parse(rendered);
    } catch (err) {
      const message = (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ');
      return { ok: false, error: `the body is not valid JSON: ${message.slice(0, JSON_MESSAGE_MAX)}` };
    }
    return { ok: true, body: rendered };
  }
  // NOTE: each value was percent-encoded as it was printed, so a line break or an & here is the template's own
  const pairs = rendered
    .split(/\r?\n|&/)
    .map((pair) => pair.trim())
    .filter((pair) => pair !== '');
  if (pairs.length === 0) return { ok: false, error: 'the body has no name=value pair' };
  const out = new URLSearchParams();
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) {
      const shown = pair.length > 40 ? `${pair.slice(0, 40)}…` : pair;
      return { ok: false, error: eq === 0 ? `the body's part "${shown}" has no name before its =` : `the body's part "${shown}" is not a name=value pair` };
    }
    out.append(decodeLeniently(pair.slice(0, eq)), decodeLeniently(pair.slice(eq + 1)));
  }
  return { ok: true, body: out.toString() };
}

/** A form body's part as a form post reads it: `+` is a space, `%XX` a byte; a `%` not followed by two hex digits stays. */
function decodeLeniently(part: string): string {
  return new URLSearchParams(`a=${part.replace(/&/g, '%26')}`).get('a') ?? '';
}

/**
 * Why a setting cannot be stored before anything is rendered (the format, the template's length),
 * one sentence each, naming `webhookBodyFormat` or `webhookBodyTemplate`; empty when it can.
 */
export function webhookBodyProblems(format: unknown, template: unknown): string[] {
  if (!isWebhookBodyFormat(format)) return [`webhookBodyFormat: must be one of ${WEBHOOK_BODY_FORMATS.join(', ')}`];
  if (format === 'json') return [];
  if (typeof template !== 'string' || template.trim() === '') return ['webhookBodyTemplate: must not be empty with this body format'];
  if ([...template].length > WEBHOOK_BODY_TEMPLATE_MAX) return [`webhookBodyTemplate: must be at most ${WEBHOOK_BODY_TEMPLATE_MAX} characters`];
  return [];
}
