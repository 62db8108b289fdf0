// Training the base model: counts of each token in the spam and in the legitimate posts, as the
// learned filter reads them (src/spam/learned-filter.ts), pruned to the tokens that say something.
import type { BaseModelFile } from '../../src/spam/base-model.js';
import { scannedFields } from '../../src/spam/score.js';
import { tokensOf } from '../../src/spam/tokens.js';
import type { LabelledPost } from './corpus.js';

// A token seen fewer times than this in all says too little to ship.
const MIN_SEEN = 3;

/** The counts of `posts`, every token of each post counted once. */
export function trainModel(posts: readonly LabelledPost[], source: string): BaseModelFile {
  const counts = new Map<string, [number, number]>();
  let spamMessages = 0;
  let hamMessages = 0;
  for (const post of posts) {
    if (post.spam) spamMessages++;
    else hamMessages++;
    for (const token of tokensOf(scannedFields(post.fields))) {
      const count = counts.get(token) ?? [0, 0];
      count[post.spam ? 0 : 1]++;
      counts.set(token, count);
    }
  }
  const tokens: Record<string, [number, number]> = {};
  for (const [token, [spam, ham]] of [...counts].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (spam + ham < MIN_SEEN) continue;
    // as often in both (by share of their messages): no evidence either way
    const spamShare = spam / spamMessages;
    const hamShare = ham / hamMessages;
    if (Math.abs(spamShare / (spamShare + hamShare) - 0.5) < 0.1) continue;
    tokens[token] = [spam, ham];
  }
  return { source, spamMessages, hamMessages, tokens };
}
