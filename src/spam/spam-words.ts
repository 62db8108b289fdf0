import { normalizeSafely } from './characters.js';
import { PhraseAutomaton, phraseSymbols } from './phrase-automaton.js';

/** The form owner's `customSpamWords`, compiled: finds the first listed word in a submission's values. */
export interface SpamWordMatcher {
  /** The entry as the owner listed it (trimmed) when any value contains it, or null. */
  firstMatch(data: unknown): string | null;
}

const CACHE_LIMIT = 1000;
// The setting's own limit. A longer string (the API refuses one) is read up to it.
const MAX_SETTING_CHARS = 2560;
// Deeper than the parser ever builds (8 levels): only hand-built data gets this far.
const MAX_WALK_DEPTH = 32;

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
  const raws = normalizeSafely(setting.slice(0, MAX_SETTING_CHARS + 1), 'NFC').split(/[,\r\n]/);
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

// NOTE: the words are found by one automaton over all of them (phrase-automaton.ts), so a value
// costs time linear in its length whatever the setting holds. A regular expression of the same words
// went back over each entry at every position: 1,270 words against 256 KB took over 10 seconds.
function buildMatcher(setting: string): SpamWordMatcher | null {
  const entries = parseSpamWords(setting);
  if (entries.length === 0) return null;
  const automaton = new PhraseAutomaton(entries.map(phraseSymbols));
  return {
    firstMatch(data: unknown): string | null {
      const found = findInValues(data, automaton, 0, new WeakSet());
      return found >= 0 ? entries[found]! : null;
    },
  };
}

// Values only: field names are the form's own markup, not what the visitor typed.
function findInValues(value: unknown, automaton: PhraseAutomaton, depth: number, seen: WeakSet<object>): number {
  if (typeof value === 'string') return automaton.find(normalizeSafely(value, 'NFC'));
  if (typeof value === 'number') return automaton.find(String(value));
  // An object met twice (shared or cyclic, never from the parser) is read once: the walk stays linear.
  if (typeof value !== 'object' || value === null || depth >= MAX_WALK_DEPTH || seen.has(value)) return -1;
  seen.add(value);
  const children = Array.isArray(value) ? value : Object.values(value);
  for (const child of children) {
    const found = findInValues(child, automaton, depth + 1, seen);
    if (found >= 0) return found;
  }
  return -1;
}
