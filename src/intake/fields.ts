import { validationError } from '../errors.js';
import { buildData, createFieldTree, defineOwn, MAX_DEPTH, placeField } from './field-paths.js';

/** What one submission carried: its stored fields, its control fields and its captcha answers. */
export interface ParsedSubmission {
  data: Record<string, unknown>;
  /** The first value of each control field, by its flattened name (`_email.subject`). */
  controls: Record<string, string>;
  /** Every control name sent with a value that is not blank, repeats, `_x[]` and nested JSON (`_x.a`, `_x[0]`) included: the honeypot reads it. */
  filledControls: Set<string>;
  captcha: Partial<Record<'botpoison' | 'recaptcha' | 'hcaptcha' | 'turnstile' | 'altcha', string>>;
}

type CaptchaKind = keyof ParsedSubmission['captcha'];

const MAX_FIELDS = 1000;
const MAX_NAME = 256;

// NOTE: a Map, not an object literal: a field named `constructor` must not find Object's constructor.
// Captcha answers go to `captcha` only, never to `controls` or `data`: one place holds each token.
const CAPTCHA_FIELDS = new Map<string, CaptchaKind>([
  ['_botpoison', 'botpoison'],
  ['g-recaptcha-response', 'recaptcha'],
  ['h-captcha-response', 'hcaptcha'],
  ['cf-turnstile-response', 'turnstile'],
  ['altcha', 'altcha'],
]);

/** Urlencoded and multipart text fields, in the order sent, become a submission's data and controls. */
export function fieldsFromPairs(pairs: Iterable<[string, string]>): ParsedSubmission {
  const parsed = emptySubmission();
  const tree = createFieldTree();
  let count = 0;
  for (const [name, value] of pairs) {
    if (typeof name !== 'string' || name === '') continue;
    // Past the limit only count, so that the error can say how many were sent.
    if (++count > MAX_FIELDS) continue;
    checkName(name);
    const kind = CAPTCHA_FIELDS.get(name);
    if (kind) parsed.captcha[kind] ??= value;
    else if (name.startsWith('_')) setControl(parsed, name, value);
    else placeField(tree, name, value);
  }
  checkCount(count);
  parsed.data = buildData(tree);
  return withCleanText(parsed);
}

/** A JSON body becomes the same shape as a form post; nested control objects are flattened with dots. */
export function fieldsFromJson(body: unknown): ParsedSubmission {
  if (!isObject(body)) throw validationError(['body: must be a JSON object of fields']);
  const parsed = emptySubmission();
  const count = { leaves: 0 };
  for (const key of Object.keys(body)) {
    // An unnamed field is dropped, as in a form post.
    if (key === '') continue;
    checkName(key);
    const value = body[key];
    const kind = CAPTCHA_FIELDS.get(key);
    if (kind) {
      count.leaves++;
      if (typeof value === 'string') parsed.captcha[kind] = value;
    } else if (key.startsWith('_')) {
      flattenControl(parsed, key, value, 1, count);
    } else {
      defineOwn(parsed.data, key, copyJson(value, 1, count));
    }
  }
  checkCount(count.leaves);
  return withCleanText(parsed);
}

/** The answer the submission carried in a captcha response field (`g-recaptcha-response`, …), if any. */
export function captchaAnswer(parsed: ParsedSubmission, fieldName: string): string | undefined {
  const kind = CAPTCHA_FIELDS.get(fieldName);
  return kind ? parsed.captcha[kind] : undefined;
}

/** The caller refuses a submission without any field of its own that has a value (controls and captcha do not count). */
export function isEmpty(parsed: ParsedSubmission): boolean {
  return Object.values(parsed.data).every(isBlankValue);
}

/**
 * Whether a value says nothing: null, a string of whitespace only, or an array or object of blank
 * values only. A number or a boolean says something. Spam traps and the empty check share it.
 */
export function isBlankValue(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.every(isBlankValue);
  if (typeof value === 'object') return Object.values(value).every(isBlankValue);
  return false;
}

function copyJson(value: unknown, depth: number, count: { leaves: number }): unknown {
  if (depth > MAX_DEPTH) throw validationError([`fields: at most ${MAX_DEPTH} levels of nesting`]);
  if (Array.isArray(value)) {
    if (value.length === 0) count.leaves++;
    return value.map((item) => copyJson(item, depth + 1, count));
  }
  if (!isObject(value)) {
    count.leaves++;
    return value;
  }
  const keys = Object.keys(value);
  if (keys.length === 0) count.leaves++;
  const copy = {};
  for (const key of keys) {
    checkName(key);
    defineOwn(copy, key, copyJson(value[key], depth + 1, count));
  }
  return copy;
}

// Arrays are flattened by index (`_x[0]`), as objects are by key: a value inside either is still sent.
function flattenControl(parsed: ParsedSubmission, name: string, value: unknown, depth: number, count: { leaves: number }): void {
  if (depth > MAX_DEPTH) throw validationError([`fields: at most ${MAX_DEPTH} levels of nesting`]);
  if (Array.isArray(value) && value.length > 0) {
    value.forEach((item, i) => {
      flattenControl(parsed, `${name}[${i}]`, item, depth + 1, count);
    });
    return;
  }
  if (isObject(value) && Object.keys(value).length > 0) {
    for (const key of Object.keys(value)) {
      checkName(key);
      flattenControl(parsed, `${name}.${key}`, value[key], depth + 1, count);
    }
    return;
  }
  count.leaves++;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') setControl(parsed, name, String(value));
}

// The first value of a repeated control is the one used; any filled one is remembered for the traps.
function setControl(parsed: ParsedSubmission, name: string, value: string): void {
  if (!isBlankValue(value)) parsed.filledControls.add(name);
  if (!Object.hasOwn(parsed.controls, name)) defineOwn(parsed.controls, name, value);
}

function checkName(name: string): void {
  if (name.length > MAX_NAME) throw validationError([`fields: a field name is longer than ${MAX_NAME} characters (${name.length})`]);
}

function checkCount(count: number): void {
  if (count > MAX_FIELDS) throw validationError([`fields: at most ${MAX_FIELDS} fields, got ${count}`]);
}

function emptySubmission(): ParsedSubmission {
  return { data: {}, controls: {}, filledControls: new Set(), captcha: {} };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// PostgreSQL's text and json cannot hold U+0000 (the write failed with a 500), and in a form field
// it means nothing. A lone UTF-16 surrogate (JSON's "\ud800") is no character at all: SQLite stored
// it as invalid UTF-8 and gave back three U+FFFD, PostgreSQL one. Each becomes one U+FFFD in names
// and values, here, once, so both databases store the same text.
const UNSTORABLE = /[\0\p{Cs}]/u;
const UNSTORABLE_ALL = /[\0\p{Cs}]/gu;

function withCleanText(parsed: ParsedSubmission): ParsedSubmission {
  parsed.data = cleanText(parsed.data);
  parsed.controls = cleanText(parsed.controls);
  return parsed;
}

function cleanString(text: string): string {
  return UNSTORABLE.test(text) ? text.replace(UNSTORABLE_ALL, '\uFFFD') : text;
}

function cleanText<T>(value: T): T {
  if (typeof value === 'string') return cleanString(value) as T;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = cleanText(value[i]);
  } else if (value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    for (const key of Object.keys(object)) {
      const clean = cleanText(object[key]);
      const cleanKey = cleanString(key);
      // defineOwn, never `object[key] =`: a field may be named `__proto__`
      if (cleanKey === key) {
        if (clean !== object[key]) defineOwn(object, key, clean);
      } else {
        delete object[key];
        defineOwn(object, cleanKey, clean);
      }
    }
  }
  return value;
}
