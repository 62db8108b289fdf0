/** The form owner's `customSpamWords`, compiled: finds the first listed word in a submission's values. */
export interface SpamWordMatcher {
  /** The entry as the owner listed it (trimmed) when any value contains it, or null. */
  firstMatch(data: unknown): string | null;
}

const CACHE_LIMIT = 1000;
// The setting's own limit. A longer string (the API refuses one) is read up to it, so that a huge
// one cannot overflow the stack of the regular expression compiler.
const MAX_SETTING_CHARS = 2560;
// Deeper than the parser ever builds (8 levels): only hand-built data gets this far.
const MAX_WALK_DEPTH = 32;
// A letter, combining mark or digit of any script: a listed word must not touch one on either side.
const WORD_CHAR = /[\p{L}\p{M}\p{N}]/u;
const NOT_AFTER_WORD = '(?<![\\p{L}\\p{M}\\p{N}])';
const NOT_BEFORE_WORD = '(?![\\p{L}\\p{M}\\p{N}])';
// Scripts written without spaces between words: a listed word in them matches inside a run of text.
const UNSPACED_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

const cache = new Map<string, SpamWordMatcher | null>();

/** Compiled once per form setting and cached by the setting string, so the hot path does not recompile. */
export function compileSpamWords(setting: string | null): SpamWordMatcher | null {
  if (typeof setting !== 'string') return null;
  const cached = cache.get(setting);
  if (cached !== undefined) {
    // Re-inserting keeps the Map in least-recently-used order, so eviction drops the coldest setting.
    cache.delete(setting);
    cache.set(setting, cached);
    return cached;
  }
  const matcher = buildMatcher(setting);
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(setting, matcher);
  return matcher;
}

/** The entries of a setting: split on commas and line breaks, trimmed, empty ones and repeats dropped. */
export function parseSpamWords(setting: string): string[] {
  const seen = new Set<string>();
  const entries: string[] = [];
  const raws = setting
    .slice(0, MAX_SETTING_CHARS + 1)
    .normalize('NFC')
    .split(/[,\r\n]/);
  // The entry cut by the limit is dropped rather than matched as a fragment ("casi" of "casino").
  if (setting.length > MAX_SETTING_CHARS) raws.pop();
  for (const raw of raws) {
    const entry = raw.trim();
    const key = entry.toLowerCase();
    if (entry === '' || seen.has(key)) continue;
    seen.add(key);
    entries.push(entry);
  }
  return entries;
}

function buildMatcher(setting: string): SpamWordMatcher | null {
  const entries = parseSpamWords(setting);
  if (entries.length === 0) return null;
  // Entries are grouped by which edges need a word boundary, and each group's lookarounds stand
  // outside its alternation: a lookbehind inside every alternative stops V8 from skipping ahead by
  // first characters and made a long setting hundreds of times slower on a large value.
  const groups = new Map<string, { before: string; after: string; members: string[] }>();
  for (const entry of entries) {
    const before = needsBoundaryBefore(entry) ? NOT_AFTER_WORD : '';
    const after = needsBoundaryAfter(entry) ? NOT_BEFORE_WORD : '';
    const key = `${before.length}:${after.length}`;
    const group = groups.get(key);
    if (group) group.members.push(entry);
    else groups.set(key, { before, after, members: [entry] });
  }
  const ordered: string[] = [];
  const alternatives: string[] = [];
  for (const { before, after, members } of groups.values()) {
    // One capture group per entry tells which one matched without re-comparing case-folded text.
    alternatives.push(`${before}(?:${members.map((entry) => `(${entryBody(entry)})`).join('|')})${after}`);
    ordered.push(...members);
  }
  // NOTE: every alternative is a literal whose only quantifier is `\s+` between two literal words, so
  // a failed attempt costs at most the entry's length plus one whitespace run: no catastrophic backtracking.
  const pattern = new RegExp(alternatives.join('|'), 'iu');
  return {
    firstMatch(data: unknown): string | null {
      const match = findInValues(data, pattern, 0, new WeakSet());
      if (!match) return null;
      const group = match.findIndex((captured, index) => index > 0 && captured !== undefined);
      return ordered[group - 1] ?? null;
    },
  };
}

/** Runs of whitespace inside a phrase match any run of whitespace: "buy now" finds "Buy  now". */
function entryBody(entry: string): string {
  return entry.split(/\s+/).map(escapeRegExp).join('\\s+');
}

function needsBoundaryBefore(entry: string): boolean {
  return needsBoundary(String.fromCodePoint(entry.codePointAt(0) ?? 0));
}

function needsBoundaryAfter(entry: string): boolean {
  // The last two code units may be one astral character (a surrogate pair) or two characters.
  return needsBoundary(Array.from(entry.slice(-2)).pop() ?? '');
}

// Only an edge that is a letter or digit needs a boundary: "$$$" or "c++" has no word to be inside of,
// and Chinese, Japanese or Thai text has no spaces to stand at a word's edge.
function needsBoundary(char: string): boolean {
  return WORD_CHAR.test(char) && !UNSPACED_SCRIPT.test(char);
}

function escapeRegExp(text: string): string {
  // With the `u` flag only syntax characters may be escaped; `-` is safe outside a class.
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

// Values only: field names are the form's own markup, not what the visitor typed.
function findInValues(value: unknown, pattern: RegExp, depth: number, seen: WeakSet<object>): RegExpExecArray | null {
  if (typeof value === 'string') return pattern.exec(value.normalize('NFC'));
  if (typeof value === 'number') return pattern.exec(String(value));
  // An object met twice (shared or cyclic, never from the parser) is read once: the walk stays linear.
  if (typeof value !== 'object' || value === null || depth >= MAX_WALK_DEPTH || seen.has(value)) return null;
  seen.add(value);
  const children = Array.isArray(value) ? value : Object.values(value);
  for (const child of children) {
    const match = findInValues(child, pattern, depth + 1, seen);
    if (match) return match;
  }
  return null;
}
