import { normalizeSafely } from './characters.js';
import { MemoryRepeatLog, REPEAT_LIMIT, REPEAT_WINDOW_MS, type RepeatLog } from './repeats.js';
import { gibberishFindings } from './gibberish.js';
import { baseModel } from './base-model.js';
import { type Counts, judge, type LearnedVerdict } from './learned-filter.js';
import { learnedFinding } from './learned-finding.js';
import { tokensOf } from './tokens.js';
import { tokenHash } from './token-hash.js';
import { phraseFindings } from './known-phrases.js';
import { type Finding, linkFindings, markupFindings, type ScannedField, SPAM_THRESHOLD, WEIGHTS } from './score-rules.js';

/** The automatic filter's answer for one submission; `reasons` name each signal that fired with its points. */
export interface SpamVerdict {
  spam: boolean;
  score: number;
  reasons: string[];
  /** What the learned filter made of it. */
  learned: LearnedVerdict;
}

export interface SpamScorerOptions {
  /** Milliseconds since the epoch; tests pass their own clock instead of sleeping. */
  now?: () => number;
  /** Where the repeat signal counts: this process's memory by default, Redis with several instances. */
  repeats?: RepeatLog;
  /** The learned filter's starting counts: the shipped base model by default. */
  base?: Counts;
  /** What each workspace taught the filter (services/spam-lessons.ts); without it, the base model alone. */
  lessons?: { countsFor(workspaceId: string): Promise<Counts | null> };
}

// NOTE: the scorer runs on every submission, so it reads at most this much of each value and of the
// whole submission: a 256 KB body of one value costs the same as a 70 KB one.
export const MAX_VALUE_CHARS = 20_000;
export const MAX_TOTAL_CHARS = 50_000;
const MAX_LEAVES = 2_000;
const MAX_DEPTH = 32;
export { REPEAT_LIMIT, REPEAT_WINDOW_MS };
// Soft hyphens and zero-width characters split a word for a filter but not for a reader ("via\u200Bgra").
const INVISIBLE = /[\u00AD\u200B-\u200D\u2060\uFEFF]/g;
const WHITESPACE = /\s+/g;
const WORD = /[\p{L}\p{M}]+/gu;
const LATIN = /[A-Za-z]/;
const CYRILLIC_OR_GREEK = /[\u0370-\u03FF\u0400-\u04FF\u0500-\u052F]/;
// Cyrillic and Greek letters drawn like Latin ones, as spammers mix them into a word ("viаgra" with a Cyrillic а).
const LOOK_ALIKES = new Map(
  Object.entries({
    а: 'a',
    е: 'e',
    о: 'o',
    р: 'p',
    с: 'c',
    у: 'y',
    х: 'x',
    і: 'i',
    ј: 'j',
    ѕ: 's',
    ԁ: 'd',
    ӏ: 'l',
    ԛ: 'q',
    ԝ: 'w',
    А: 'A',
    В: 'B',
    Е: 'E',
    К: 'K',
    М: 'M',
    Н: 'H',
    О: 'O',
    Р: 'P',
    С: 'C',
    Т: 'T',
    Х: 'X',
    І: 'I',
    Ј: 'J',
    Ѕ: 'S',
    У: 'Y',
    α: 'a',
    ι: 'i',
    κ: 'k',
    ν: 'v',
    ο: 'o',
    ρ: 'p',
    υ: 'u',
    χ: 'x',
    Α: 'A',
    Β: 'B',
    Ε: 'E',
    Ζ: 'Z',
    Η: 'H',
    Ι: 'I',
    Κ: 'K',
    Μ: 'M',
    Ν: 'N',
    Ο: 'O',
    Ρ: 'P',
    Τ: 'T',
    Υ: 'Y',
    Χ: 'X',
  }),
);

/**
 * Scores submissions on their content and on repeats from one address. Always on and not
 * configurable; one instance per process (the repeat log in memory is its own).
 */
export class SpamScorer {
  private readonly now: () => number;
  private readonly repeats: RepeatLog;
  private readonly base: Counts;
  private readonly lessons: SpamScorerOptions['lessons'];

  constructor(options: SpamScorerOptions = {}) {
    this.now = options.now ?? Date.now;
    this.repeats = options.repeats ?? new MemoryRepeatLog();
    this.base = options.base ?? baseModel();
    this.lessons = options.lessons;
  }

  /**
   * Scores one submission's stored data (control fields already removed) from client ip, with what
   * its workspace taught the filter and what the outside judges found (spam/judges/), asked with the
   * values as the scorer read them (normalised once). Records it for the repeat signal.
   */
  async score(
    data: Record<string, unknown>,
    ip: string,
    workspaceId: string | null = null,
    askOutside: (fields: ScannedField[]) => Promise<Finding[]> = async () => [],
  ): Promise<SpamVerdict> {
    const fields = scannedFields(data);
    const outside = await askOutside(fields);
    const lessons = workspaceId !== null && this.lessons ? await this.lessons.countsFor(workspaceId) : null;
    const text = fields.map((field) => field.text).join('\n');
    const learned = judge(tokensOf(fields), this.base, lessons);
    const findings = [
      ...linkFindings(text),
      ...phraseFindings(text),
      ...markupFindings(text),
      ...gibberishFindings(fields),
      ...(await this.repeatFindings(fields, ip)),
      ...outside,
      ...learnedFinding(learned, this.base),
    ];
    const score = findings.reduce((sum, finding) => sum + finding.points, 0);
    const spam = score >= SPAM_THRESHOLD || findings.some((finding) => finding.decisive);
    return { spam, score, reasons: findings.map(reasonOf), learned };
  }

  // A person may send the same message twice (a double click, a retry); a third time within the window is a bot.
  private async repeatFindings(fields: ScannedField[], ip: string): Promise<Finding[]> {
    const sightings = await this.repeats.sighted(`${ip} ${contentHash(fields)}`, this.now());
    if (sightings < REPEAT_LIMIT) return [];
    return [
      {
        points: WEIGHTS.repeated,
        reason: `same content ${REPEAT_LIMIT} or more times from this address within ${REPEAT_WINDOW_MS / 60_000} minutes`,
        decisive: true,
      },
    ];
  }
}

/** A finding as the reasons list it: what fired and its points, with their sign. */
function reasonOf(finding: Finding): string {
  return `${finding.reason} (${finding.points < 0 ? '−' : '+'}${Math.abs(finding.points)})`;
}

/** Every value of the submission (never a field name), normalised and within the reading budget. */
export function scannedFields(data: Record<string, unknown>): ScannedField[] {
  const fields: ScannedField[] = [];
  let budget = MAX_TOTAL_CHARS;
  let leaves = 0;
  const seen = new WeakSet<object>();
  const visit = (key: string, value: unknown, depth: number): void => {
    if (budget <= 0 || leaves >= MAX_LEAVES) return;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      leaves++;
      const limit = Math.min(MAX_VALUE_CHARS, budget);
      const text = normaliseText(String(value).slice(0, limit)).slice(0, limit);
      budget -= text.length;
      if (text !== '') fields.push({ key, text });
      return;
    }
    // An object met twice (shared or cyclic, never from the parser) is read once: the walk stays linear.
    if (typeof value !== 'object' || value === null || depth >= MAX_DEPTH || seen.has(value)) return;
    seen.add(value);
    if (Array.isArray(value)) for (const item of value) visit(key, item, depth + 1);
    else for (const [childKey, child] of Object.entries(value)) visit(childKey, child, depth + 1);
  };
  for (const [key, value] of Object.entries(data)) visit(key, value, 0);
  return fields;
}

// NFKC folds full-width and mathematical letters into the plain ones the rules know; a word mixing
// Latin with Cyrillic or Greek has its look-alikes folded too (a word in one script is left alone).
function normaliseText(text: string): string {
  const normalised = normalizeSafely(text, 'NFKC').replace(INVISIBLE, '');
  // only a text with Cyrillic or Greek in it can hold a mixed-script word: most are read once, not word by word
  return CYRILLIC_OR_GREEK.test(normalised) ? normalised.replace(WORD, (word) => (isMixedScript(word) ? foldLookAlikes(word) : word)) : normalised;
}

function isMixedScript(word: string): boolean {
  return LATIN.test(word) && CYRILLIC_OR_GREEK.test(word);
}

function foldLookAlikes(word: string): string {
  let folded = '';
  for (const char of word) folded += LOOK_ALIKES.get(char) ?? char;
  return folded;
}

// Case and spacing do not make a message new: "Buy NOW" and "buy  now" are one content. The hash
// only tells one address's posts apart within the repeat window, so the lessons' 53-bit one does: a
// SHA-256 of the text cost several times as much, and no secret rests on it.
function contentHash(fields: ScannedField[]): string {
  let content = '';
  for (const { key, text } of fields) content += `${key}\0${text.toLowerCase().replace(WHITESPACE, ' ').trim()}\0`;
  return tokenHash(content).toString(36);
}
