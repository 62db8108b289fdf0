import { createHash } from 'node:crypto';
import { isolatedHandlebars, onFirstUse } from '../mail/handlebars.js';
import { DEFAULT_LANGUAGE, errorWording, pageText, supportedLanguage, type PageText, type Wording } from './languages/index.js';
import { PAGE_STYLE, PAGE_TEMPLATE } from './page-template.js';

export interface PageOptions {
  title?: string;
  message?: string;
  dark?: boolean;
  branding: boolean;
  backUrl?: string | null;
  /** A supported language (`languages/`); English when absent. */
  language?: string;
}

const TITLE_MAX = 200;
const MESSAGE_MAX = 2000;
// NOTE: validation errors can echo visitor field names, so they are capped like any visitor text.
const ERRORS_MAX = 50;
const ERROR_MAX = 500;
// the Location header allows 4,000 characters; the link's text shows them all but a pathological tail
const ONWARDS_LABEL_MAX = 4_000;

const TRUE_WORDS = new Set(['true', '1', 'on', 'yes']);

/** What the template sees; every field is always present because the template compiles in strict mode. */
interface PageView {
  lang: string;
  kind: 'success' | 'error' | 'info';
  theme: 'theme-light' | 'theme-dark';
  title: string;
  message: string;
  errors: string[];
  backUrl: string | null;
  backLabel: string;
  /** The host the way back leads to, written beside its label (null: the label says it already). */
  backHost: string | null;
  /** ← for the way back, → for the way on. */
  arrow: string;
  branding: boolean;
  poweredBy: string;
}

// An isolated environment: helpers or partials registered elsewhere cannot leak into these pages.
const template = onFirstUse(() => isolatedHandlebars().compile<PageView>(PAGE_TEMPLATE, { strict: true, knownHelpersOnly: true }));

/**
 * The Content-Security-Policy to send with these pages: nothing may load, and only this exact
 * inline style may apply (the style is static, so its hash is too).
 */
export const PAGE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(PAGE_STYLE).digest('base64')}'`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The page a browser lands on after posting a plain HTML form, unless the form gives `_redirect`. */
export function renderThankYouPage(options: PageOptions): string {
  const text = textOf(options);
  return render(options, 'success', text.thanks, [], text.goBack);
}

/**
 * After a GET to a workspace nobody vouched for, instead of a redirect the visitor did not choose:
 * the submission was taken, and the page names the address the owner would send them to, written
 * out whole as the link's text, so the visitor sees where it leads before going (issue 38, item 11).
 */
export function renderOnwardsPage(options: PageOptions & { destination: string }): string {
  const text = textOf(options);
  const page = { ...options, title: undefined, message: text.onwards, backUrl: options.destination };
  return render(page, 'success', text.thanks, [], cap(options.destination, ONWARDS_LABEL_MAX), '→', false);
}

/** What a form's address shows to a GET that carries no fields (a person who opened the link). */
export function renderFormAddressPage(options: PageOptions): string {
  const text = textOf(options);
  return render({ ...options, title: undefined, message: undefined }, 'info', text.formAddress, [], text.goBack);
}

/**
 * The readable page for a failed browser submission (when the form gives no `_error`).
 * NOTE: the caller passes the problem's detail as `message`; keep 5xx details out of it.
 */
export function renderErrorPage(status: number, options: PageOptions & { errors?: string[]; code?: string }): string {
  const errors = (options.errors ?? []).slice(0, ERRORS_MAX).map((error) => cap(error, ERROR_MAX));
  const text = textOf(options);
  return render(options, 'error', errorWording(text, options.code ?? '', status), errors, text.backToForm);
}

/**
 * Reads `_feedback.*` controls (flat names like '_feedback.success.title') into page options. The
 * wording only when `vouched` (the post came from one of the form's allowed origins): anyone can post
 * anything, and these pages are on the owner's submit domain. The theme says nothing, so it always applies.
 */
export function feedbackOf(controls: Record<string, string>, kind: 'success' | 'error', vouched: boolean): { title?: string; message?: string; dark: boolean } {
  const feedback: { title?: string; message?: string; dark: boolean } = {
    dark: TRUE_WORDS.has((controls['_feedback.dark'] ?? '').trim().toLowerCase()),
  };
  if (!vouched) return feedback;
  const title = present(controls[`_feedback.${kind}.title`]);
  const message = present(controls[`_feedback.${kind}.message`]);
  // capped here, as the page caps them: they travel in the thank-you link's Location header, which a
  // proxy refuses past a few KB (the submission stored, the visitor shown a 502)
  if (title !== undefined) feedback.title = cap(title, TITLE_MAX);
  if (message !== undefined) feedback.message = cap(message, MESSAGE_MAX);
  return feedback;
}

function textOf(options: PageOptions): PageText {
  return pageText(options.language ?? DEFAULT_LANGUAGE);
}

function render(options: PageOptions, kind: PageView['kind'], defaults: Wording, errors: string[], backLabel: string, arrow = '←', namesHost = true): string {
  const backUrl = safeBackUrl(options.backUrl);
  return template()({
    lang: supportedLanguage(options.language) ?? DEFAULT_LANGUAGE,
    kind,
    theme: options.dark ? 'theme-dark' : 'theme-light',
    title: cap(present(options.title) ?? defaults.title, TITLE_MAX),
    message: cap(present(options.message) ?? defaults.message, MESSAGE_MAX),
    errors,
    backUrl,
    backLabel,
    // NOTE: the way back may lead to a site the owner never listed (the page the post came from): the page says which
    backHost: backUrl && namesHost ? new URL(backUrl).host : null,
    arrow,
    branding: options.branding,
    poweredBy: textOf(options).poweredBy,
  });
}

/** Only http(s) may become a link: anything else (javascript:, data:, relative) could run or mislead. */
function safeBackUrl(value: string | null | undefined): string | null {
  if (!value) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
}

/** Blank text counts as absent, so an empty `_feedback.*` field keeps the default. */
function present(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/** Truncates by code point, so an emoji is never cut in half. */
function cap(value: string, max: number): string {
  // max code points lie within the first 2 * max code units: a visitor's value may be 256 KB
  const chars = Array.from(value.slice(0, 2 * max + 1));
  return chars.length > max ? chars.slice(0, max).join('') : value;
}
