import { ProblemError } from '../errors.js';

/** Messages keyed by field name; `form` holds the ones about the form as a whole. */
export type FieldErrors = Record<string, string>;

/**
 * The page's side of a service's problem: a validation problem's `errors` ("name: must be …")
 * become messages beside their fields, any other problem's `detail` the form's message. Anything
 * that is not a problem is rethrown (an error page, never a stack trace). `words`: a page's own
 * sentence for a field's message (plain-errors.ts); without it, the message as a sentence.
 */
export function fieldErrors(error: unknown, words?: (field: string, message: string) => string): FieldErrors {
  if (!(error instanceof ProblemError) || error.status >= 500) throw error;
  const errors = error.extra.errors;
  if (error.code !== 'validation_error' || !Array.isArray(errors)) return { form: error.detail };
  const byField: FieldErrors = {};
  for (const line of errors as string[]) {
    const match = /^([A-Za-z][\w.[\]]*): (.*)$/s.exec(line);
    const [field, message] = match ? [match[1]!, match[2]!] : ['form', line];
    byField[field] ??= words && field !== 'form' ? words(field, message) : sentence(message);
  }
  return byField;
}

/** "must be at least 8 characters" → "Must be at least 8 characters." */
function sentence(message: string): string {
  const text = message.charAt(0).toUpperCase() + message.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
