// Random strings typed or generated to fill a form: word statistics over plain Latin letters, not patterns.
import { BARE_DOMAIN, counted, type Finding, MARKED_LINK, matchesOf, type ScannedField, WEIGHTS } from './score-rules.js';

// Every link, domain and e-mail address holds one of these: a value without them is read as it is.
const MAY_HOLD_ADDRESS = /[.:@]/;
// An address is found from its '@', its local part read backwards from there: a pattern that began
// with the local part tried up to 64 characters at each position of a long dotted word.
const EMAIL_DOMAIN = /@[\w-]{1,63}(?:\.[\w-]{1,63})+/g;
const LOCAL_PART_MAX = 64;
const LETTER_RUN = /[\p{L}\p{M}]+/gu;
const LETTERS_AND_DIGITS = /[\p{L}\p{M}\p{N}]+/gu;
const ASCII_WORD = /^[A-Za-z]+$/;
const ROMAN_NUMERAL = /^[ivxlcdm]+$/;
const VOWEL = /[aeiouy]/;
const KEYBOARD_RUN = /asdf|sdfg|dfgh|fghj|ghjk|hjkl|zxcv|xcvb|cvbn|vbnm|lkjh|kjhg|jhgf|hgfd|gfds|fdsa|mnbv|nbvc|bvcx|vcxz/;
// NOTE: looksRandom runs on every word of every submission, so these read char codes (a-z is 97-122)
// rather than building a string or running a regex per letter.
const A = 97;

// Letter pairs found in fewer than 3 of every 10,000 words of the English, German, French, Spanish,
// Italian, Polish, Dutch, Swedish and Portuguese dictionaries. Left out although as rare there: "q"
// before any letter (Uzbek, Albanian, transliterated Arabic and Chinese), "xw" (Kurdish) and "cw" (Welsh).
const RARE_PAIRS = pairTable(
  'bq bx cb cd cf cg cp cv cx dx fc fq fx gq gx hq hx jj jq jx jy kq kx lx mj mq mx pq px rx sx tq tx ' +
    'vc vq vw vx vz wj wq wx xb xd xf xg xj xk xl xm xn xq xr xs xv xx xz yq yy zx',
);
// Written as one sound, so "Geschichtsschreibung" is not a run of seven consonants.
const DIGRAPHS = /sch|ch|sz|cz|th|ph|sh|ck|gh/g;
const NAME_LIKE_FIELD = /name|first|last|surname|city|town|company|organi[sz]ation/i;
const MOSTLY = 0.3;

/**
 * Random strings typed or generated to fill a form. Only words of plain Latin letters are judged:
 * other scripts, accented words, e-mail addresses, links, numbers and short codes never count.
 */
export function gibberishFindings(fields: ScannedField[]): Finding[] {
  let words = 0;
  const odd = new Set<string>();
  for (const { key, text } of fields) {
    const prose = MAY_HOLD_ADDRESS.test(text) ? withoutEmails(text.replace(MARKED_LINK, ' ').replace(BARE_DOMAIN, ' ')) : text;
    // NOTE: exec in a loop rather than matchesOf: no array of every word of every submission
    LETTER_RUN.lastIndex = 0;
    for (let match = LETTER_RUN.exec(prose); match; match = LETTER_RUN.exec(prose)) {
      const word = match[0];
      if (word.length < 2) continue;
      words++;
      if (looksRandom(word)) odd.add(word.toLowerCase());
    }
    // Names hold no digits; a bot's random fill often mixes them in ("k8jd9f2").
    if (NAME_LIKE_FIELD.test(key))
      for (const [token] of matchesOf(prose, LETTERS_AND_DIGITS, Infinity)) if (letterDigitSwitches(token) >= 3) odd.add(token.toLowerCase());
  }
  const count = odd.size;
  if (count === 0) return [];
  const reason = `${counted(count, 'random-looking word')} of ${words}`;
  if (count >= 2 && count / Math.max(words, 1) >= MOSTLY) return [{ points: WEIGHTS.mostlyGibberish, reason, decisive: true }];
  return [{ points: Math.min(count * WEIGHTS.gibberishWord, WEIGHTS.gibberishMax), reason }];
}

/** `text` with each e-mail address (up to 64 characters before the '@', a dotted domain after it) made one space. */
export function withoutEmails(text: string): string {
  let out = '';
  let from = 0;
  EMAIL_DOMAIN.lastIndex = 0;
  for (let match = EMAIL_DOMAIN.exec(text); match; match = EMAIL_DOMAIN.exec(text)) {
    let start = match.index;
    while (start > from && match.index - start < LOCAL_PART_MAX && isLocalPartChar(text.charCodeAt(start - 1))) start--;
    // no local part: not an address, and its domain may still be the local part of the next one
    if (start === match.index) continue;
    out += `${text.slice(from, start)} `;
    from = EMAIL_DOMAIN.lastIndex;
  }
  EMAIL_DOMAIN.lastIndex = 0;
  return out + text.slice(from);
}

/** What `[\w.+-]` matches: ASCII letters, digits, `_`, `.`, `+` and `-`. */
function isLocalPartChar(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 95 || code === 46 || code === 43 || code === 45;
}

/** Exposed for tests: whether one word looks typed at random rather than written. */
export function looksRandom(word: string): boolean {
  if (word.length < 5 || !ASCII_WORD.test(word)) return false;
  // Booking references, order codes and acronyms ("QXZTRB", "HTTPS") are capitals; random fills rarely are.
  if (word.length <= 12 && !hasLower(word)) return false;
  if (lowerToUpperSwitches(word) >= 3) return true;
  const lower = word.toLowerCase();
  if (ROMAN_NUMERAL.test(lower)) return false;
  if (KEYBOARD_RUN.test(lower)) return true;
  if (lower.length >= 6 && !VOWEL.test(lower) && new Set(lower).size >= 4) return true;
  const rare = rarePairs(lower);
  const run = longestConsonantRun(lower.replace(DIGRAPHS, 'c'));
  return rare >= 2 || (rare >= 1 && run >= 5) || run >= 7;
}

/** The pairs as a 26×26 table of flags, indexed by the letters' codes. */
function pairTable(pairs: string): Uint8Array {
  const table = new Uint8Array(26 * 26);
  for (const pair of pairs.split(' ')) table[(pair.charCodeAt(0) - A) * 26 + pair.charCodeAt(1) - A] = 1;
  return table;
}

/** For a word of lower-case a-z only. */
function rarePairs(word: string): number {
  let count = 0;
  for (let i = 0; i < word.length - 1; i++) count += RARE_PAIRS[(word.charCodeAt(i) - A) * 26 + word.charCodeAt(i + 1) - A]!;
  return count;
}

function longestConsonantRun(word: string): number {
  let longest = 0;
  let run = 0;
  for (let i = 0; i < word.length; i++) {
    run = isVowel(word.charCodeAt(i)) ? 0 : run + 1;
    if (run > longest) longest = run;
  }
  return longest;
}

/** a, e, i, o, u and y, as VOWEL matches them. */
function isVowel(code: number): boolean {
  return code === 97 || code === 101 || code === 105 || code === 111 || code === 117 || code === 121;
}

function lowerToUpperSwitches(word: string): number {
  let count = 0;
  for (let i = 1; i < word.length; i++) if (isLower(word.charCodeAt(i - 1)) && !isLower(word.charCodeAt(i))) count++;
  return count;
}

/** Whether a word of ASCII letters holds a lower-case one (`word !== word.toUpperCase()`, without making the copy). */
function hasLower(word: string): boolean {
  for (let i = 0; i < word.length; i++) if (isLower(word.charCodeAt(i))) return true;
  return false;
}

function isLower(code: number): boolean {
  return code >= 97 && code <= 122;
}

function letterDigitSwitches(token: string): number {
  let count = 0;
  for (let i = 1; i < token.length; i++) if (isDigit(token[i - 1]!) !== isDigit(token[i]!)) count++;
  return count;
}

function isDigit(char: string): boolean {
  return char >= '0' && char <= '9';
}
