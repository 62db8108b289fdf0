import { encodeWord } from 'nodemailer/lib/mime-funcs';
import { HIDDEN_CHARACTERS } from '../domain/uploads.js';

// Whitespace, C0 and C1 controls (CR, LF, NEL…), DEL, and the Unicode line and paragraph separators.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching C0 and C1 controls and DEL is the point: they are stripped so no header can be injected
const BLANK_RUN = /[\s\u0000-\u001f\u007f-\u009f\u2028\u2029]+/y;
// Bidirectional controls and invisible characters (issue 38, item 17): removed, so that a subject
// or a sender's name shows what it says (`Invoice \u202Efdp.exe` would read as `Invoice exe.pdf`).
const HIDDEN_RUN = new RegExp(`[${HIDDEN_CHARACTERS}]+`, 'y');

/**
 * One line, printable, bounded: each run of whitespace and controls becomes one space (none at the
 * ends), so no header can be injected and a subject stays one line; bidirectional controls and
 * invisible characters are removed; at most `max` code points.
 * NOTE: it reads only as far as the result needs: a 256 KB `_email.subject` costs what 200 characters do.
 */
export function headerText(value: string | undefined, max: number): string {
  if (!value) return '';
  let line = '';
  let length = 0;
  let spaceBefore = false;
  for (let at = 0; at < value.length && length < max; ) {
    BLANK_RUN.lastIndex = at;
    if (BLANK_RUN.test(value)) {
      at = BLANK_RUN.lastIndex;
      spaceBefore = length > 0;
      continue;
    }
    HIDDEN_RUN.lastIndex = at;
    if (HIDDEN_RUN.test(value)) {
      at = HIDDEN_RUN.lastIndex;
      continue;
    }
    if (spaceBefore) {
      line += ' ';
      spaceBefore = false;
      if (++length === max) break;
    }
    const char = String.fromCodePoint(value.codePointAt(at)!);
    line += char;
    length++;
    at += char.length;
  }
  return line;
}

/**
 * Header text sent so that it reads as written. Text holding `=?` could be an RFC 2047 encoded
 * word ("=?UTF-8?Q?Hi=0D=0ABcc:…?="), which nodemailer passes on as it is and mail clients decode,
 * line breaks and all: such text is sent encoded itself, so it is decoded once, back to the text.
 */
export function literalHeaderText(value: string): string {
  return value.includes('=?') ? encodeWord(value, 'B', 52) : value;
}
