import type { CaptchaVerifyUrls, SpamProtection, ThirdPartyCaptcha } from '../domain/captcha-providers.js';
import { ALTCHA_FIELD } from './altcha.js';

/**
 * `missing`: the visitor sent no answer. `failed`: the answer, or the form's secret key, was refused
 * (the visitor must solve the CAPTCHA again, or the owner fix the key). `unreachable`: the provider
 * could not give a verdict now (network, timeout, 429/5xx, an answer that is not a verdict): retryable.
 */
export type CaptchaOutcome = { ok: true } | { ok: false; reason: 'missing' | 'failed' | 'unreachable'; detail: string };

export interface CaptchaInput {
  /** The form's stored secret key for this provider; null when none is stored. */
  secret: string | null;
  /** The visitor's answer, from the provider's field. */
  token: string | undefined;
  /** The visitor's address, sent to the providers that take one. */
  ip: string;
}

const DEFAULT_TIMEOUT_MS = 5000;
// Turnstile documents 2048; live hCaptcha tokens run past that. 8 KiB leaves room for every provider
// while keeping a bot from making Formgate forward megabytes to a third party.
export const MAX_CAPTCHA_TOKEN_LENGTH = 8192;
const MAX_ANSWER_BYTES = 64 * 1024;
// Error codes that blame the form's secret key, not the visitor's answer (reCAPTCHA, hCaptcha and Turnstile share them).
const SECRET_CODES = new Set(['missing-input-secret', 'invalid-input-secret', 'sitekey-secret-mismatch']);

interface Verdict {
  success: boolean;
  codes: string[];
}

interface Provider {
  label: string;
  field: string;
  encode(secret: string, token: string, ip: string): { contentType: string; body: string };
  /** The verdict in the provider's answer; null when the answer is not one. */
  decode(answer: unknown): Verdict | null;
}

/** reCAPTCHA, hCaptcha and Turnstile share one wire format: urlencoded in, `{ success, error-codes }` out. */
function siteverify(label: string, field: string): Provider {
  return {
    label,
    field,
    encode(secret, token, ip) {
      const form = new URLSearchParams({ secret, response: token });
      if (ip) form.set('remoteip', ip);
      return { contentType: 'application/x-www-form-urlencoded', body: form.toString() };
    },
    decode(answer) {
      if (!isRecord(answer) || typeof answer.success !== 'boolean') return null;
      const codes = answer['error-codes'];
      return { success: answer.success, codes: Array.isArray(codes) ? codes.filter((c): c is string => typeof c === 'string') : [] };
    },
  };
}

const PROVIDERS: Record<ThirdPartyCaptcha, Provider> = {
  BOTPOISON: {
    label: 'Botpoison',
    field: '_botpoison',
    // Botpoison takes JSON and no visitor address.
    encode: (secretKey, solution) => ({ contentType: 'application/json', body: JSON.stringify({ secretKey, solution }) }),
    decode(answer) {
      if (!isRecord(answer) || typeof answer.ok !== 'boolean') return null;
      return { success: answer.ok, codes: typeof answer.message === 'string' ? [answer.message] : [] };
    },
  },
  GOOGLE_RECAPTCHA_V2: siteverify('Google reCAPTCHA', 'g-recaptcha-response'),
  HCAPTCHA: siteverify('hCaptcha', 'h-captcha-response'),
  TURNSTILE: siteverify('Cloudflare Turnstile', 'cf-turnstile-response'),
};

/** The field a visitor's form sends for this provider (for error messages and docs). */
export function captchaFieldName(provider: SpamProtection): string {
  return provider === 'ALTCHA' ? ALTCHA_FIELD : PROVIDERS[provider].field;
}

/**
 * Asks the provider whether `token` is a valid answer. Never throws: every way it can go wrong is an
 * outcome whose detail can be shown to the visitor (a missing secret is checked first: solving the
 * CAPTCHA again would not help). No HTTP call is made for a missing secret, token, or an over-long token.
 */
export async function verifyCaptcha(
  provider: ThirdPartyCaptcha,
  input: CaptchaInput,
  urls: CaptchaVerifyUrls,
  options: { timeoutMs?: number } = {},
): Promise<CaptchaOutcome> {
  const wire = Object.hasOwn(PROVIDERS, provider) ? PROVIDERS[provider] : undefined;
  if (!wire)
    return {
      ok: false,
      reason: 'failed',
      detail: `This form asks for an unknown CAPTCHA provider (${String(provider)}); its owner must correct the form's settings.`,
    };
  const { secret, token, ip } = input;
  if (!secret?.trim()) {
    return {
      ok: false,
      reason: 'failed',
      detail: `This form requires ${wire.label}, but its owner has not configured the secret key, so no answer can be verified; nothing was stored.`,
    };
  }
  if (!token?.trim()) {
    return { ok: false, reason: 'missing', detail: `This form requires a CAPTCHA (the ${wire.field} field was empty); complete it and submit again.` };
  }
  if (token.length > MAX_CAPTCHA_TOKEN_LENGTH) {
    return {
      ok: false,
      reason: 'failed',
      detail: `The CAPTCHA answer (${wire.field}) is longer than ${MAX_CAPTCHA_TOKEN_LENGTH} characters, so it is not a real one; complete the CAPTCHA and submit again.`,
    };
  }
  const timeoutMs = options.timeoutMs !== undefined && options.timeoutMs > 0 && Number.isFinite(options.timeoutMs) ? options.timeoutMs : DEFAULT_TIMEOUT_MS;
  const url = urls[provider];
  try {
    const { contentType, body } = wire.encode(secret, token, ip);
    // NOTE: the timeout's signal also bounds reading the body; redirects are refused, since one would
    // resend the secret key to wherever it points.
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': contentType, accept: 'application/json' },
      body,
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (response.status === 429 || response.status >= 500) {
      await response.body?.cancel().catch(() => {});
      return unreachable(wire, url, `it answered HTTP ${response.status}`);
    }
    const text = await readBounded(response, MAX_ANSWER_BYTES);
    if (text === null) return unreachable(wire, url, `its answer was larger than ${MAX_ANSWER_BYTES / 1024} KB`);
    const verdict = wire.decode(parseJson(text));
    if (!verdict) return unreachable(wire, url, `its answer (HTTP ${response.status}) was not a verdict`);
    if (verdict.success && response.ok) return { ok: true };
    return { ok: false, reason: 'failed', detail: failedDetail(wire, verdict.codes.map(printable).slice(0, 5)) };
  } catch (error) {
    return unreachable(wire, url, causeOf(error, timeoutMs));
  }
}

function failedDetail(wire: Provider, codes: string[]): string {
  const suffix = codes.length ? ` (${codes.join(', ')})` : '';
  if (codes.some((c) => SECRET_CODES.has(c))) {
    return `${wire.label} refused this form's secret key${suffix}, so no answer can be verified; the form's owner must correct it. Nothing was stored.`;
  }
  return `The CAPTCHA answer (${wire.field}) did not verify with ${wire.label}${suffix}; complete the CAPTCHA again and submit again.`;
}

function unreachable(wire: Provider, url: string, cause: string): CaptchaOutcome {
  return {
    ok: false,
    reason: 'unreachable',
    detail: `${wire.label} (${hostOf(url)}) could not verify the CAPTCHA: ${cause}. Nothing was stored; submit again in a moment.`,
  };
}

/** The body as text, or null past `limit` bytes: a verdict is a few hundred bytes, anything else is not one. */
async function readBounded(response: Response, limit: number): Promise<string | null> {
  if (Number(response.headers.get('content-length')) > limit) {
    await response.body?.cancel().catch(() => {});
    return null;
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function causeOf(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return `it did not answer within ${timeoutMs} ms`;
  // undici reports "fetch failed" with the system error (ECONNREFUSED, ENOTFOUND, …) as its cause.
  const cause = error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  if (typeof cause?.code === 'string') return `it could not be reached (${cause.code})`;
  if (typeof cause?.message === 'string') return `it could not be reached (${printable(cause.message)})`;
  return `it could not be reached (${printable(error instanceof Error ? error.message : String(error))})`;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'an invalid address';
  }
}

// Provider text reaches the visitor's error message: keep it short and printable.
function printable(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?').slice(0, 100);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
