import { validationError } from '../errors.js';

/** The longest name of a passkey: a device's name fits, a page of text does not. */
export const PASSKEY_NAME_MAX = 60;
// control characters, lone surrogates, line separators, and the marks that turn text around or hide it
const UNSHOWABLE = /[\p{Cc}\p{Cs}\u2028\u2029\u200B\u200E\u200F\u202A-\u202E\u2066-\u2069\uFEFF]/u;

/** A passkey's name as kept: trimmed, its spaces single; '' when none was given; a validation problem when it cannot be shown. */
export function passkeyName(typed: string): string {
  const name = typed.trim().replace(/\s+/g, ' ');
  if (name.length > PASSKEY_NAME_MAX) throw validationError([`name: Must be at most ${PASSKEY_NAME_MAX} characters.`]);
  if (UNSHOWABLE.test(name)) throw validationError(['name: Must be plain text: no control characters.']);
  return name;
}
