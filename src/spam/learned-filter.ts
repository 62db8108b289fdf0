// The learned half of the spam filter: a statistical classifier over a submission's tokens
// (tokens.ts), in the form Gary Robinson gave Paul Graham's "plan for spam" and SpamBayes and
// Bogofilter use: each token's spam probability from how often it appeared in spam and in
// legitimate messages, shrunk towards "unknown" while it has been seen rarely, and the strongest
// tokens combined with Fisher's method into one figure from 0 (legitimate) to 1 (spam). It reads
// counts from a base model (base-model.ts) and, added to them with more weight, what the workspace
// taught it by marking submissions (services/spam-lessons.ts).

/** How often a token appeared: in how many spam and how many legitimate messages. */
export interface TokenCount {
  spam: number;
  ham: number;
}

/** A body of learned counts: the messages it learned from, and each token's count. */
export interface Counts {
  readonly spamMessages: number;
  readonly hamMessages: number;
  /** The token's counts, or undefined when it was never seen. */
  count(token: string): TokenCount | undefined;
}

/** Counts of nothing: a filter that knows no words (the rules alone). */
export const NO_COUNTS: Counts = { spamMessages: 0, hamMessages: 0, count: () => undefined };

/** The classifier's answer: `probability` of spam from 0 to 1, and the tokens that weighed most on its side. */
export interface LearnedVerdict {
  probability: number;
  /** How many tokens the answer rests on (none: the filter knows nothing of this text). */
  evidence: number;
  /** The strongest tokens for the side the probability leans to, strongest first. */
  strongest: { token: string; probability: number; learned: boolean }[];
}

// Robinson's strength of the prior and the prior itself: a token seen once moves little from 0.5.
const PRIOR_STRENGTH = 0.45;
const PRIOR = 0.5;
// A token nearer to 0.5 than this says nothing; at most this many of the strongest are combined.
const MIN_STRENGTH = 0.1;
const MAX_DISCRIMINATORS = 150;
/** A mark of the workspace counts as this many messages of the base model: the owner knows their own forms best. */
export const LESSON_WEIGHT = 3;
const SHOWN = 5;

/**
 * Judges one submission's tokens against the base counts and the workspace's own (null: it has
 * learned nothing). Linear in the tokens: one lookup each, then a partial sort of the strongest.
 */
export function judge(tokens: Iterable<string>, base: Counts, learned: Counts | null): LearnedVerdict {
  const clues: { token: string; probability: number; strength: number; learned: boolean }[] = [];
  for (const token of tokens) {
    const fromBase = base.count(token);
    const fromLessons = learned?.count(token);
    if (!fromBase && !fromLessons) continue;
    // a token the workspace marked is read in the base's frame with the lessons added, weighing
    // more; a token it never marked is read by the base alone, so that lessons of other words do
    // not move it (through the totals)
    const spam = (fromBase?.spam ?? 0) + (fromLessons ? LESSON_WEIGHT * fromLessons.spam : 0);
    const ham = (fromBase?.ham ?? 0) + (fromLessons ? LESSON_WEIGHT * fromLessons.ham : 0);
    const seen = spam + ham;
    if (seen === 0) continue;
    const spamMessages = base.spamMessages + (fromLessons ? LESSON_WEIGHT * learned!.spamMessages : 0);
    const hamMessages = base.hamMessages + (fromLessons ? LESSON_WEIGHT * learned!.hamMessages : 0);
    const spamRate = spamMessages > 0 ? spam / spamMessages : 0;
    const hamRate = hamMessages > 0 ? ham / hamMessages : 0;
    const raw = spamRate + hamRate === 0 ? PRIOR : spamRate / (spamRate + hamRate);
    const probability = (PRIOR_STRENGTH * PRIOR + seen * raw) / (PRIOR_STRENGTH + seen);
    const strength = Math.abs(probability - PRIOR);
    if (strength >= MIN_STRENGTH) clues.push({ token, probability, strength, learned: fromLessons !== undefined });
  }
  if (clues.length === 0) return { probability: 0.5, evidence: 0, strongest: [] };
  clues.sort((a, b) => b.strength - a.strength);
  const used = clues.length > MAX_DISCRIMINATORS ? clues.slice(0, MAX_DISCRIMINATORS) : clues;
  const probability = fisher(used.map((clue) => clue.probability));
  const leansSpam = probability >= PRIOR;
  const strongest = used
    .filter((clue) => clue.probability >= PRIOR === leansSpam)
    .slice(0, SHOWN)
    .map(({ token, probability, learned }) => ({ token, probability, learned }));
  return { probability, evidence: used.length, strongest };
}

/** Fisher's combination as SpamBayes makes it: how surely spam, how surely not, met in the middle. */
function fisher(probabilities: number[]): number {
  let logSpam = 0;
  let logHam = 0;
  for (const p of probabilities) {
    logSpam += Math.log(1 - p);
    logHam += Math.log(p);
  }
  const degrees = 2 * probabilities.length;
  const spam = 1 - chiSquaredSurvival(-2 * logSpam, degrees);
  const ham = 1 - chiSquaredSurvival(-2 * logHam, degrees);
  return (spam - ham + 1) / 2;
}

/** P(X ≥ x²) for a chi-squared variable of an even number of degrees of freedom (the series is exact). */
function chiSquaredSurvival(x2: number, degrees: number): number {
  const m = x2 / 2;
  let term = Math.exp(-m);
  let sum = term;
  for (let i = 1; i < degrees / 2; i++) {
    term *= m / i;
    sum += term;
  }
  return Math.min(sum, 1);
}
