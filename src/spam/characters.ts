// What the spam-word matcher knows of each character: whether it belongs to a word, is written in a
// script without spaces, or is whitespace, and which character it is when case does not matter.
// Both come from the regular-expression engine's own classes and case folding, so the matcher reads
// text exactly as the `iu` pattern it replaced did, without running a pattern per position.

/** A letter, combining mark or digit of any script: a listed word must not touch one on either side. */
export const WORD = 1;
/** Chinese, Japanese, Thai, Lao, Khmer or Burmese: written without spaces, so no boundary is needed. */
export const UNSPACED = 2;
/** What `\s` matches in a regular expression. */
export const SPACE = 4;
const KNOWN = 8;

const WORD_CHAR = /^[\p{L}\p{M}\p{N}]$/u;
const UNSPACED_CHAR = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]$/u;
const SPACE_CHAR = /^\s$/u;

// One byte per code point (1.1 MB), filled as characters are first met: each is classified once per
// process, so a submission costs one array read per character.
const classes = new Uint8Array(0x110000);

/** WORD, UNSPACED and SPACE bits of one code point (a lone surrogate is none of them). */
export function classOf(codePoint: number): number {
  const known = classes[codePoint]!;
  return known !== 0 ? known : classify(codePoint);
}

function classify(codePoint: number): number {
  const char = String.fromCodePoint(codePoint);
  const computed = KNOWN | (WORD_CHAR.test(char) ? WORD : 0) | (UNSPACED_CHAR.test(char) ? UNSPACED : 0) | (SPACE_CHAR.test(char) ? SPACE : 0);
  classes[codePoint] = computed;
  return computed;
}

// Every character whose case can change lies below U+20000 (Adlam, U+1E943, is the last one).
const CASED_LIMIT = 0x20000;
// Pairs the regular-expression engine equates that no upper- or lower-case mapping of one character
// leads to (their mappings are several characters long); each is checked before it is used.
const FOLDED_WITHOUT_MAPPING = [
  [0x1fd3, 0x0390],
  [0x1fe3, 0x03b0],
  [0xfb05, 0xfb06],
];

/**
 * For each character that case-insensitive matching equates with others, the smallest code point
 * of its group (`k`, `K` and the Kelvin sign `K` all become `K`); 0 for a character equal only to
 * itself. Built once at load (a few milliseconds): the groups are those of the engine's `iu` flags
 * (simple case folding), so `ß` is not `ss` and the Turkish dotless `ı` is not `i`.
 */
const folded = buildFoldTable();

/** The code point that stands for `codePoint` and every character equal to it when case does not matter. */
export function foldCase(codePoint: number): number {
  const to = codePoint < CASED_LIMIT ? folded[codePoint]! : 0;
  return to === 0 ? codePoint : to;
}

function buildFoldTable(): Int32Array {
  const group = new Int32Array(CASED_LIMIT).map((_, i) => i);
  const root = (at: number): number => {
    let r = at;
    while (group[r] !== r) r = group[r]!;
    return r;
  };
  const join = (a: number, b: number) => {
    const [ra, rb] = [root(a), root(b)];
    if (ra !== rb) group[Math.max(ra, rb)] = Math.min(ra, rb);
  };
  const cased = /^\p{Changes_When_Casemapped}$/u;
  for (let codePoint = 0; codePoint < CASED_LIMIT; codePoint++) {
    if (codePoint >= 0xd800 && codePoint <= 0xdfff) continue;
    const char = String.fromCodePoint(codePoint);
    if (!cased.test(char)) continue;
    const lower = char.toLowerCase();
    const upper = char.toUpperCase();
    for (const other of [lower, upper, upper.toLowerCase(), lower.toUpperCase()]) {
      const otherPoint = singleCodePoint(other);
      if (otherPoint < 0 || otherPoint === codePoint || otherPoint >= CASED_LIMIT) continue;
      // A character and its own simple upper or lower case are always one group; anything further
      // (the dotless ı upper-cases to I, which lower-cases to i) only when the engine agrees.
      const mutual = (other === lower || other === upper) && (other.toLowerCase() === char || other.toUpperCase() === char);
      if (mutual || equalIgnoringCase(char, other)) join(codePoint, otherPoint);
    }
  }
  for (const [a, b] of FOLDED_WITHOUT_MAPPING) if (equalIgnoringCase(String.fromCodePoint(a!), String.fromCodePoint(b!))) join(a!, b!);
  const table = new Int32Array(CASED_LIMIT);
  for (let codePoint = 0; codePoint < CASED_LIMIT; codePoint++) {
    const r = root(codePoint);
    if (r !== codePoint) table[codePoint] = r;
  }
  return table;
}

function singleCodePoint(text: string): number {
  const codePoint = text.codePointAt(0) ?? -1;
  return text.length === (codePoint > 0xffff ? 2 : 1) ? codePoint : -1;
}

function equalIgnoringCase(a: string, b: string): boolean {
  return new RegExp(`^\\u{${a.codePointAt(0)!.toString(16)}}$`, 'iu').test(b);
}

// Unicode's Stream-Safe Text Format (UAX #15, section 13): after 30 combining marks in a row, a
// COMBINING GRAPHEME JOINER. Normalising reorders a run of marks by insertion, which costs the square
// of its length (128,000 marks took 20 s); with runs of 30 it is linear. No written language needs
// more than a few marks on one letter, so only deliberately garbled text is changed.
const LONG_MARK_RUN = /(\p{M}{30})(?=\p{M})/gu;

// Text of ASCII alone is already normal in every form and holds no marks: most form posts are, and
// the check costs a fifth of the Unicode-aware scan and normalisation it spares (issue 44).
const BEYOND_ASCII = /[\u0080-\uffff]/;

/** `text.normalize(form)` in time linear in its length, whatever it holds. */
export function normalizeSafely(text: string, form: 'NFC' | 'NFKC'): string {
  if (!BEYOND_ASCII.test(text)) return text;
  return text.replace(LONG_MARK_RUN, '$1\u034F').normalize(form);
}
