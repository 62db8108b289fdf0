import { de } from './de.js';
import { en } from './en.js';
import { es } from './es.js';
import { fr } from './fr.js';
import { it } from './it.js';
import { nl } from './nl.js';
import type { PageText, Wording } from './page-text.js';
import { pl } from './pl.js';
import { pt } from './pt.js';
import { ru } from './ru.js';
import { uk } from './uk.js';

export type { PageText, Wording } from './page-text.js';

// The hosted service's `_feedback.language` values, all of them.
// NOTE: a Map, not an object literal: a language named `constructor` must not find Object's constructor.
const TEXTS = new Map<string, PageText>([
  ['en', en],
  ['de', de],
  ['fr', fr],
  ['es', es],
  ['it', it],
  ['nl', nl],
  ['pt', pt],
  ['pl', pl],
  ['ru', ru],
  ['uk', uk],
]);

export const DEFAULT_LANGUAGE = 'en';
export const PAGE_LANGUAGES = [...TEXTS.keys()];

// Accept-Language is a browser's header: a handful of entries. More are not read (the parse stays bounded).
const MAX_ACCEPTED = 32;

/** A supported language for a tag such as `de`, `pt-BR` or `FR`, or null. */
export function supportedLanguage(tag: string | null | undefined): string | null {
  const primary = tag?.trim().split(/[-_]/, 1)[0]?.toLowerCase() ?? '';
  return TEXTS.has(primary) ? primary : null;
}

/**
 * The language of a built-in page: the post's `_feedback.language` when it names a supported one,
 * else the first supported language of the browser's `Accept-Language` by preference, else English.
 */
export function pageLanguage(requested: string | null | undefined, acceptLanguage: string | undefined): string {
  return supportedLanguage(requested) ?? preferredLanguage(acceptLanguage) ?? DEFAULT_LANGUAGE;
}

/** The words of a page in `language` (English for one not supported). */
export function pageText(language: string): PageText {
  return TEXTS.get(language) ?? en;
}

/** The default title and message of the error page for a problem, by its code, else its status. */
export function errorWording(text: PageText, code: string, status: number): Wording {
  const { errors } = text;
  if (code === 'validation_error' || code === 'captcha_failed' || code === 'origin_not_allowed' || code === 'not_found') return errors[code];
  if (code === 'quota_exceeded') return errors.quota_exceeded;
  if (code === 'form_closed') return errors.form_closed;
  if (code === 'payload_too_large' || status === 413) return errors.payload_too_large;
  if (code === 'rate_limited' || status === 429) return errors.rate_limited;
  if (status === 503) return errors.unavailable;
  if (status === 400) return errors.validation_error;
  if (status === 404) return errors.not_found;
  return text.error;
}

/** `de-CH, fr;q=0.8, en;q=0.5` → the supported language with the highest q (the first of equals); q=0 means "not this one". */
function preferredLanguage(header: string | undefined): string | null {
  if (!header) return null;
  let best: string | null = null;
  let bestQ = 0;
  for (const entry of header.split(',', MAX_ACCEPTED)) {
    const [tag, ...params] = entry.split(';');
    const language = supportedLanguage(tag);
    if (!language) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.toLowerCase().startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (Number.isFinite(q) && q > bestQ && q <= 1) {
      best = language;
      bestQ = q;
    }
  }
  return best;
}
