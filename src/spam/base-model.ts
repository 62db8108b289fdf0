// The learned filter's starting knowledge (learned-filter.ts), so that a new installation is useful
// before anyone marks a submission: token counts from a public labelled corpus, made by
// `npm run spam:train` (bench/spam/train.ts) and shipped in base-model-data.ts (JSON in a string: a
// module the type checker reads in no time, bundled with the program). docs/spam-filter.md names
// the corpus and its licence.
import { BASE_MODEL_JSON } from './base-model-data.js';
import type { Counts, TokenCount } from './learned-filter.js';

/** The base model: the messages learned from, and each token's [spam, ham] counts. */
export interface BaseModelFile {
  source: string;
  spamMessages: number;
  hamMessages: number;
  tokens: Record<string, [number, number]>;
}

// A token's two counts in one number, as a map of numbers takes a fraction of the memory of a map
// of objects (59,000 tokens: about 4 MB rather than 11).
const HAM_BITS = 2 ** 24;

/** Counts kept in a map, as the base model is read once per process. */
export class CountsInMemory implements Counts {
  private readonly tokens: Map<string, number>;
  readonly spamMessages: number;
  readonly hamMessages: number;

  constructor(model: BaseModelFile) {
    this.spamMessages = model.spamMessages;
    this.hamMessages = model.hamMessages;
    this.tokens = new Map();
    for (const token in model.tokens) {
      const [spam, ham] = model.tokens[token]!;
      this.tokens.set(token, spam * HAM_BITS + ham);
    }
  }

  count(token: string): TokenCount | undefined {
    const packed = this.tokens.get(token);
    return packed === undefined ? undefined : { spam: Math.floor(packed / HAM_BITS), ham: packed % HAM_BITS };
  }
}

let base: CountsInMemory | null = null;

/** The shipped base model, read on first use. */
export function baseModel(): Counts {
  base ??= new CountsInMemory(JSON.parse(BASE_MODEL_JSON) as BaseModelFile);
  return base;
}
