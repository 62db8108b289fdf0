// The words the learned filter weighs (learned-filter.ts): what a submission says, read once, in
// time linear in its length. Personal details a visitor types (e-mail addresses, phone and other
// long numbers) are never tokens: they say nothing about spam in general and would make the learned
// state hold personal data. Links count by their host's words, as spam is often known by where it points.
import { withoutEmails } from './gibberish.js';
import type { ScannedField } from './score-rules.js';

/** The most distinct tokens read from one submission: a 50,000-character post costs a bounded set. */
export const MAX_TOKENS = 2_000;
const MIN_WORD = 2;
const MAX_WORD = 24;
// A run of letters, digits and the marks inside words ("don't", "e-mail", "$100"); linear: one class, no alternation.
const WORD = /[\p{L}\p{M}\p{N}$€£][\p{L}\p{M}\p{N}'’$€£%-]*/gu;
const LINK = /\bhttps?:\/\/[^\s<>"'()[\]]{1,300}|\bwww\.[^\s<>"'()[\]]{1,300}/gi;
const HOST_PART = /[a-z0-9-]{2,}/g;
// parts of a host that say nothing of where a link points: `www`, and the names reserved for examples (RFC 2606)
const UNTELLING_HOST_PARTS = new Set(['www', 'example', 'test', 'invalid', 'localhost']);
const DIGITS = /\p{N}/u;
// Chinese and Japanese are written without spaces: a "word" of them is a whole clause, seen once.
// Their text is read as overlapping pairs of characters instead, as search engines index it.
const CJK = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\u30fc]/u;
const CJK_OR_NOT = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\u30fc]+|[^\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\u30fc]+/gu;
const MONEY = /^[$€£]/;
const TRIMMED = /^[-'’]+|[-'’%]+$/g;
const TRIMMABLE = /^[-'’]|[-'’%]$/;

/**
 * The distinct tokens of a submission's scanned values (already normalised and capped): lower-case
 * words and the pairs of adjacent words, each link's host words (`host:shop`), and a sign for each
 * kind of detail left out (`email`, `number:5`).
 */
export function tokensOf(fields: readonly ScannedField[]): Set<string> {
  const tokens = new Set<string>();
  const add = (token: string) => {
    if (tokens.size < MAX_TOKENS) tokens.add(token);
  };
  for (const { key, text } of fields) {
    const fieldName = key.toLowerCase();
    // a short field named like a subject says more in its own right ("subject:free")
    const prefix = fieldName === 'subject' || fieldName === '_subject' ? 'subject:' : '';
    const withoutLinks = text.replace(LINK, (link) => {
      const host = link
        .replace(/^https?:\/\//i, '')
        .split(/[/?#:]/, 1)[0]!
        .toLowerCase();
      for (const [part] of host.matchAll(HOST_PART)) if (!UNTELLING_HOST_PARTS.has(part)) add(`host:${part}`);
      return ' ';
    });
    const prose = withoutLinks.includes('@') ? withoutEmails(withoutLinks) : withoutLinks;
    if (prose !== withoutLinks) add('email');
    let previous: string | null = null;
    // lower-cased once for the whole value, not word by word; and searched once for Chinese or Japanese
    const lower = prose.toLowerCase();
    const anyCjk = CJK.test(lower);
    // NOTE: exec in a loop rather than matchAll: no iterator result per word of every submission
    WORD.lastIndex = 0;
    for (let match = WORD.exec(lower); match; match = WORD.exec(lower)) {
      const raw = match[0];
      if (tokens.size >= MAX_TOKENS) return tokens;
      const word = TRIMMABLE.test(raw) ? raw.replace(TRIMMED, '') : raw;
      if (anyCjk && CJK.test(word)) {
        addCjk(prefix, word, add);
        previous = null;
        continue;
      }
      if (word.length < MIN_WORD) {
        previous = null;
        continue;
      }
      if (DIGITS.test(word) && !MONEY.test(word)) {
        // numbers are phone numbers, order numbers, dates: only their length is a clue
        add(`number:${Math.min(word.length, 12)}`);
        previous = null;
        continue;
      }
      if (word.length > MAX_WORD) {
        add(`long:${word[0]}`);
        previous = null;
        continue;
      }
      add(prefix + word);
      if (previous !== null) add(`${prefix}${previous} ${word}`);
      previous = word;
    }
  }
  return tokens;
}

/** A word holding Chinese or Japanese: each run of their characters as its pairs of characters (a lone one as itself), the rest as words. */
function addCjk(prefix: string, word: string, add: (token: string) => void): void {
  for (const [part] of word.matchAll(CJK_OR_NOT)) {
    if (!CJK.test(part)) {
      if (DIGITS.test(part)) add(`number:${Math.min(part.length, 12)}`);
      else if (part.length >= MIN_WORD && part.length <= MAX_WORD) add(prefix + part);
      continue;
    }
    const characters = Array.from(part);
    if (characters.length === 1) add(prefix + part);
    for (let i = 0; i + 1 < characters.length; i++) add(prefix + characters[i]! + characters[i + 1]!);
  }
}
