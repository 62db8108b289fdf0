// The learned filter's starting knowledge (learned-filter.ts), so that a new installation is useful
// before anyone marks a submission: token counts from a public labelled corpus, made by
// `npm run spam:train` (bench/spam/train.ts) and shipped in base-model-data.ts (one line a token, in
// a string bundled with the program: modelText). docs/spam-filter.md names the corpus and its licence.
import { BASE_MODEL_TEXT } from './base-model-data.js';
import type { Counts, TokenCount } from './learned-filter.js';

/** The base model: the messages learned from, and each token's [spam, ham] counts. */
export interface BaseModelFile {
  source: string;
  spamMessages: number;
  hamMessages: number;
  tokens: Record<string, [number, number]>;
}

/**
 * Counts kept compactly: the tokens in one string, one line each (`modelText`), found through an
 * open-addressing table of typed arrays. The shipped model's 60,537 tokens as a Map of strings and
 * the JSON parsed to fill it held 13 MB more resident memory through the process's life and 4 MB more
 * heap, whose entries every major collection walked; here they are a handful of objects the
 * collector does not look into (issue 44).
 */
export class CountsInMemory implements Counts {
  readonly spamMessages: number;
  readonly hamMessages: number;
  private readonly text: string;
  /** Token i is text[starts[i] .. starts[i] + lengths[i]), counted spams[i] and hams[i] times. */
  private readonly starts: Uint32Array;
  private readonly lengths: Uint32Array;
  private readonly spams: Uint32Array;
  private readonly hams: Uint32Array;
  /** Slot → token index + 1 (0: empty); a power of two at least twice the tokens. */
  private readonly slots: Int32Array;

  constructor(model: BaseModelFile | string) {
    const text = typeof model === 'string' ? model : modelText(model);
    const header = text.indexOf('\n');
    const counts = text.indexOf('\n', header + 1);
    const [spamMessages, hamMessages] = text.slice(header + 1, counts === -1 ? undefined : counts).split('\t');
    this.spamMessages = Number(spamMessages);
    this.hamMessages = Number(hamMessages);
    this.text = text;
    let tokens = 0;
    for (let at = text.indexOf('\n', counts + 1); counts !== -1 && at !== -1; at = text.indexOf('\n', at + 1)) tokens++;
    if (counts !== -1 && counts + 1 < text.length) tokens++;
    this.starts = new Uint32Array(tokens);
    this.lengths = new Uint32Array(tokens);
    this.spams = new Uint32Array(tokens);
    this.hams = new Uint32Array(tokens);
    this.slots = new Int32Array(2 ** Math.ceil(Math.log2(Math.max(2, tokens * 2))));
    for (let i = 0, at = counts + 1; i < tokens; i++) {
      const lineEnd = text.indexOf('\n', at);
      const end = lineEnd === -1 ? text.length : lineEnd;
      const tab = text.indexOf('\t', at);
      const secondTab = text.indexOf('\t', tab + 1);
      this.starts[i] = at;
      this.lengths[i] = tab - at;
      this.spams[i] = Number(text.slice(tab + 1, secondTab));
      this.hams[i] = Number(text.slice(secondTab + 1, end));
      let slot = this.slotOf(hashOf(text, at, tab));
      while (this.slots[slot] !== 0) slot = this.slotOf(slot + 1);
      this.slots[slot] = i + 1;
      at = end + 1;
    }
  }

  count(token: string): TokenCount | undefined {
    for (let slot = this.slotOf(hashOf(token, 0, token.length)); this.slots[slot] !== 0; slot = this.slotOf(slot + 1)) {
      const i = this.slots[slot]! - 1;
      if (this.lengths[i] === token.length && this.text.startsWith(token, this.starts[i]!)) return { spam: this.spams[i]!, ham: this.hams[i]! };
    }
    return undefined;
  }

  private slotOf(n: number): number {
    return n & (this.slots.length - 1);
  }
}

/** FNV-1a over the UTF-16 code units of text[from .. to). */
function hashOf(text: string, from: number, to: number): number {
  let hash = 0x811c9dc5;
  for (let i = from; i < to; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/**
 * A model as the lines CountsInMemory reads (and base-model-data.ts ships): its source, then the
 * message counts, then a token and its spam and legitimate counts per line, tab-separated. A token
 * never holds a tab or a line break: tokens.ts makes them of words and single spaces.
 */
export function modelText(model: BaseModelFile): string {
  const lines = [model.source.replace(/[\t\n]/g, ' '), `${model.spamMessages}\t${model.hamMessages}`];
  for (const token in model.tokens) {
    const [spam, ham] = model.tokens[token]!;
    lines.push(`${token}\t${spam}\t${ham}`);
  }
  return lines.join('\n');
}

let base: CountsInMemory | null = null;

/** The shipped base model, read on first use. */
export function baseModel(): Counts {
  base ??= new CountsInMemory(BASE_MODEL_TEXT);
  return base;
}
