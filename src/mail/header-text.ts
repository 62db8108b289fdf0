import { encodeWord } from 'nodemailer/lib/mime-funcs';

/**
 * One line, printable, bounded: C0 and C1 controls (CR, LF, NEL…), DEL and the Unicode line and
 * paragraph separators become spaces, so no header can be injected and a subject stays one line.
 */
export function headerText(value: string | undefined, max: number): string {
  if (!value) return '';
  const line = value
    // biome-ignore lint/suspicious/noControlCharactersInRegex: matching C0 and C1 controls and DEL is the point: they are stripped so no header can be injected
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return [...line].slice(0, max).join('');
}

/**
 * Header text sent so that it reads as written. Text holding `=?` could be an RFC 2047 encoded
 * word ("=?UTF-8?Q?Hi=0D=0ABcc:…?="), which nodemailer passes on as it is and mail clients decode,
 * line breaks and all: such text is sent encoded itself, so it is decoded once, back to the text.
 */
export function literalHeaderText(value: string): string {
  return value.includes('=?') ? encodeWord(value, 'B', 52) : value;
}
