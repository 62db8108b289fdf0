// Combining marks that Latin letters carry as accents (Unicode's combining diacritical blocks:
// the base block, Extended, Supplement, for Symbols, Half Marks), when they follow a Latin letter.
// Other scripts' own marks (Devanagari vowel signs, Arabic harakat, kana voicing, Cyrillic й, …)
// are letters of their words and stay.
const LATIN_ACCENTS = /(\p{Script=Latin})[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+/gu;
// Latin letters whose stroke or bar is part of the character (no decomposition): their plain letter.
const STROKED: Record<string, string> = { ø: 'o', ł: 'l', đ: 'd', ħ: 'h', ŧ: 't', ƀ: 'b', ɨ: 'i', ƶ: 'z', ǥ: 'g' };
const STROKED_LETTERS = new RegExp(`[${Object.keys(STROKED).join('')}]`, 'gu');

/**
 * What search compares: `text` lower-cased, with the accents of Latin letters taken off
 * ("Gâteau" → "gateau"), recomposed (NFC). Applied alike to the stored search text and to every
 * term, so "gateau" finds "gâteau" and "gâteau" finds "gateau", on SQLite and PostgreSQL the same.
 * Linear in the text: each regular expression is one character then one character class.
 */
export function foldForSearch(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFD')
    .replace(LATIN_ACCENTS, '$1')
    .replace(STROKED_LETTERS, (letter) => STROKED[letter]!)
    .normalize('NFC');
}
