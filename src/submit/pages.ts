import { createHash } from 'node:crypto';
import { isolatedHandlebars, onFirstUse } from '../mail/handlebars.js';
import { PAGE_STYLE, PAGE_TEMPLATE } from './page-template.js';

export interface PageOptions {
  title?: string;
  message?: string;
  dark?: boolean;
  branding: boolean;
  backUrl?: string | null;
}

const TITLE_MAX = 200;
const MESSAGE_MAX = 2000;
// NOTE: validation errors can echo visitor field names, so they are capped like any visitor text.
const ERRORS_MAX = 50;
const ERROR_MAX = 500;

const THANK_YOU = { title: 'Thank you!', message: 'Your submission has been received.' };

const ERROR_DEFAULT = { title: 'Something went wrong', message: 'Your submission could not be processed. Please try again later.' };
const ERROR_BY_STATUS: Record<number, { title: string; message: string }> = {
  400: { title: 'Your submission could not be accepted', message: 'Please check the form and try again.' },
  403: { title: 'Your submission was not accepted', message: 'This form does not take this submission right now.' },
  404: { title: 'Form not found', message: 'This form does not exist or no longer accepts submissions.' },
  413: { title: 'Submission too large', message: 'The submission is larger than this form accepts.' },
  429: { title: 'Too many submissions', message: 'Please wait a little and try again.' },
  503: { title: 'Try again in a moment', message: 'The service is busy right now. Please try again shortly.' },
};

const TRUE_WORDS = new Set(['true', '1', 'on', 'yes']);

/** What the template sees; every field is always present because the template compiles in strict mode. */
interface PageView {
  kind: 'success' | 'error';
  theme: 'theme-light' | 'theme-dark';
  title: string;
  message: string;
  errors: string[];
  backUrl: string | null;
  backLabel: string;
  branding: boolean;
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
  return render(options, 'success', THANK_YOU, [], 'Go back');
}

/**
 * The readable page for a failed browser submission (when the form gives no `_error`).
 * NOTE: the caller passes the problem's detail as `message`; keep 5xx details out of it.
 */
export function renderErrorPage(status: number, options: PageOptions & { errors?: string[] }): string {
  const errors = (options.errors ?? []).slice(0, ERRORS_MAX).map((error) => cap(error, ERROR_MAX));
  return render(options, 'error', ERROR_BY_STATUS[status] ?? ERROR_DEFAULT, errors, 'Back to the form');
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
  if (title !== undefined) feedback.title = title;
  if (message !== undefined) feedback.message = message;
  return feedback;
}

function render(options: PageOptions, kind: PageView['kind'], defaults: { title: string; message: string }, errors: string[], backLabel: string): string {
  return template()({
    kind,
    theme: options.dark ? 'theme-dark' : 'theme-light',
    title: cap(present(options.title) ?? defaults.title, TITLE_MAX),
    message: cap(present(options.message) ?? defaults.message, MESSAGE_MAX),
    errors,
    backUrl: safeBackUrl(options.backUrl),
    backLabel,
    branding: options.branding,
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
  const chars = Array.from(value);
  return chars.length > max ? chars.slice(0, max).join('') : value;
}
