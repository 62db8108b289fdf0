// The learned filter's verdict as one finding beside the rules': points for or against spam, and the
// words that weighed most, so an owner can see why. NOTE: a reason is logged, and a log never holds
// what a visitor typed: only words of the base model's vocabulary (public text) are quoted; words
// known only from the workspace's own marks are counted, not shown.
import type { Counts, LearnedVerdict } from './learned-filter.js';
import type { Finding } from './score-rules.js';

/** The most points the learned filter gives for spam, and takes away for a legitimate message. */
export const LEARNED_SPAM_POINTS = 15;
export const LEARNED_HAM_POINTS = 10;
// Within this distance of 0.5 the filter is unsure, and gives no points; past it, points rise more
// than in proportion, so a fairly sure verdict weighs little and a sure one a lot. Tuned on a held-out
// third of the training messages (bench/spam/README.md).
const UNSURE = 0.1;
const STEEPNESS = 1.5;

// A verdict resting on fewer words than this weighs in proportion: one word ("visitor") is no proof.
const FULL_EVIDENCE = 5;

/**
 * Points for a probability of spam resting on `evidence` words: 0 near 0.5, up to
 * +LEARNED_SPAM_POINTS at 1 and −LEARNED_HAM_POINTS at 0.
 */
export function learnedPoints(probability: number, evidence: number): number {
  const lean = (Math.max(0, Math.abs(probability - 0.5) - UNSURE) / (0.5 - UNSURE)) * Math.min(1, evidence / FULL_EVIDENCE);
  const points = Math.round((probability >= 0.5 ? LEARNED_SPAM_POINTS : LEARNED_HAM_POINTS) * lean ** STEEPNESS);
  return probability >= 0.5 ? points : -points;
}

/** The finding for a verdict; none when the filter knew none of the words or leaned neither way. */
export function learnedFinding(verdict: LearnedVerdict, base: Counts): Finding[] {
  const points = learnedPoints(verdict.probability, verdict.evidence);
  if (verdict.evidence === 0 || points === 0) return [];
  const side = points > 0 ? 'spam' : 'legitimate';
  const percent = Math.round((points > 0 ? verdict.probability : 1 - verdict.probability) * 100);
  const shown = verdict.strongest.filter((clue) => base.count(clue.token) !== undefined).map((clue) => `"${readable(clue.token)}"`);
  const markedOnly = verdict.strongest.filter((clue) => base.count(clue.token) === undefined).length;
  const words = [...shown, ...(markedOnly > 0 ? [`${markedOnly} word${markedOnly === 1 ? '' : 's'} learned from your marks`] : [])];
  return [{ points, reason: `learned filter: ${Math.min(percent, 99)}% ${side}${words.length > 0 ? `, most of all ${words.join(', ')}` : ''}` }];
}

/** A token as a reader would say it: `host:shop` is a link to shop…, `number:5` a 5-digit number. */
function readable(token: string): string {
  if (token.startsWith('host:')) return `link to ${token.slice(5)}`;
  if (token.startsWith('number:')) return `${token.slice(7)}-digit number`;
  if (token.startsWith('long:')) return 'a very long word';
  if (token.startsWith('subject:')) return `${token.slice(8)} (subject)`;
  return token;
}
