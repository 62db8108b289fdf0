import { classOf, foldCase, SPACE, UNSPACED, WORD } from './characters.js';

// Text is read as symbols: each character as it is when case does not matter, one SPACE_SYMBOL for a
// whole run of whitespace, and an EDGE wherever a word (letters, marks, digits) begins or ends. A
// listed word that needs a boundary carries the EDGE at its own ends, so finding "sex" as a whole
// word is finding the symbols EDGE s e x EDGE, which "Essex" does not hold.
const EDGE = 0x110000;
const SPACE_SYMBOL = 0x20;

/**
 * Calls `visit` with each symbol of `text` in order, stopping at the first that it answers true for
 * (and then answering true). A phrase and a submission are read by this one function.
 */
function forEachSymbol(text: string, visit: (symbol: number) => boolean): boolean {
  // NOTE: each character is read once and nothing is allocated for it: this loop is what a value costs.
  let inWord = false;
  let inSpace = false;
  for (let i = 0; i < text.length; i++) {
    let codePoint = text.charCodeAt(i);
    if (codePoint >= 0xd800 && codePoint <= 0xdbff && i + 1 < text.length) {
      const low = text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        codePoint = 0x10000 + ((codePoint - 0xd800) << 10) + (low - 0xdc00);
        i++;
      }
    }
    const kind = classOf(codePoint);
    let symbol = SPACE_SYMBOL;
    let word = false;
    if ((kind & SPACE) !== 0) {
      // a run of whitespace is one symbol
      if (inSpace) continue;
      inSpace = true;
    } else {
      inSpace = false;
      symbol = foldCase(codePoint);
      word = (kind & WORD) !== 0;
    }
    if (word !== inWord) {
      inWord = word;
      if (visit(EDGE)) return true;
    }
    if (visit(symbol)) return true;
  }
  // the end of the text ends a word as whitespace would
  return inWord && visit(EDGE);
}

/**
 * The symbols a listed phrase must appear as (trimmed, not empty). Its ends need a word boundary only
 * when they are a letter or digit of a script written with spaces: "$$$" or "c++" has no word to be
 * inside of, and Chinese, Japanese or Thai text has no spaces to stand at a word's edge.
 */
export function phraseSymbols(phrase: string): number[] {
  const symbols: number[] = [];
  forEachSymbol(phrase, (symbol) => {
    symbols.push(symbol);
    return false;
  });
  if (symbols[0] === EDGE && (classOf(phrase.codePointAt(0)!) & UNSPACED) !== 0) symbols.shift();
  const last = Array.from(phrase.slice(-2)).pop()!;
  if (symbols.length > 1 && symbols[symbols.length - 1] === EDGE && (classOf(last.codePointAt(0)!) & UNSPACED) !== 0) symbols.pop();
  return symbols;
}

/**
 * Finds any of a fixed set of phrases in a text in one pass over it (Aho–Corasick): the work is
 * linear in the text's length whatever the phrases are, with no second look at any character. Built
 * once per setting; memory is a few typed arrays the size of the phrases' total length.
 */
export class PhraseAutomaton {
  /** Symbol → letter (1-based): the phrases' alphabet. A symbol in no phrase is letter 0. */
  private readonly letters: LetterTable;
  private readonly rootNext: Indexes;
  // Each state's transitions, sorted by letter: edgeLetter/edgeTarget[edgeStart[s] .. edgeStart[s + 1]).
  private readonly edgeStart: Indexes;
  private readonly edgeLetter: Indexes;
  private readonly edgeTarget: Indexes;
  private readonly fallback: Indexes;
  /** The phrase that ends at each state (its own, or its longest suffix's that is one), plus one; 0 for none. */
  private readonly ends: Indexes;

  /** `phrases[i]` is the symbols of phrase `i` (see `phraseSymbols`); each is at least one symbol long. */
  constructor(phrases: number[][]) {
    const alphabet = new Map<number, number>();
    const letterOf = (symbol: number): number => {
      const known = alphabet.get(symbol);
      if (known !== undefined) return known;
      alphabet.set(symbol, alphabet.size + 1);
      return alphabet.size;
    };
    // the trie of the phrases; state 0 is the empty prefix
    const children: Map<number, number>[] = [new Map()];
    const ending: number[] = [-1];
    phrases.forEach((symbols, index) => {
      let state = 0;
      for (const symbol of symbols) {
        const letter = letterOf(symbol);
        let next = children[state]!.get(letter);
        if (next === undefined) {
          next = children.length;
          children.push(new Map());
          ending.push(-1);
          children[state]!.set(letter, next);
        }
        state = next;
      }
      if (ending[state] === -1) ending[state] = index;
    });

    this.letters = new LetterTable(alphabet);
    const states = children.length;
    // A setting within its limit has some 5,000 states at most: 16-bit indexes halve what the 1,000 kept settings hold.
    const Index = states < 0x10000 ? Uint16Array : Int32Array;
    this.rootNext = new Index(alphabet.size + 1);
    for (const [letter, next] of children[0]!) this.rootNext[letter] = next;
    this.fallback = new Index(states);
    this.ends = new Index(states);
    // Breadth first, so a state's fallback (its longest proper suffix that is a prefix) is done before it.
    const queue = [...children[0]!.values()];
    for (const state of queue) this.ends[state] = ending[state]! + 1;
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head]!;
      for (const [letter, next] of children[state]!) {
        let fallback = this.fallback[state]!;
        while (fallback !== 0 && !children[fallback]!.has(letter)) fallback = this.fallback[fallback]!;
        const target = children[fallback]!.get(letter);
        this.fallback[next] = target !== undefined && target !== next ? target : 0;
        this.ends[next] = ending[next]! >= 0 ? ending[next]! + 1 : this.ends[this.fallback[next]!]!;
        queue.push(next);
      }
    }

    this.edgeStart = new Index(states + 1);
    const edges = states - 1;
    this.edgeLetter = new Index(edges);
    this.edgeTarget = new Index(edges);
    let at = 0;
    for (let state = 0; state < states; state++) {
      this.edgeStart[state] = at;
      for (const [letter, next] of [...children[state]!].sort((a, b) => a[0] - b[0])) {
        this.edgeLetter[at] = letter;
        this.edgeTarget[at++] = next;
      }
    }
    this.edgeStart[states] = at;
  }

  /** The index of a phrase found in `text` (the first to end), or -1 when none is there. */
  find(text: string): number {
    let state = 0;
    let found = -1;
    forEachSymbol(text, (symbol) => {
      state = this.next(state, symbol);
      found = this.ends[state]! - 1;
      return found >= 0;
    });
    return found;
  }

  /** The state after reading `symbol` in state `from`. */
  // NOTE: linear overall: every fallback taken shortens the current match, which grows by at most one per symbol.
  private next(from: number, symbol: number): number {
    const letter = this.letters.get(symbol);
    if (letter === 0) return 0;
    let state = from;
    while (state !== 0) {
      const target = this.transition(state, letter);
      if (target !== 0) return target;
      state = this.fallback[state]!;
    }
    return this.rootNext[letter]!;
  }

  /** The state after `letter` from `state` in the trie (binary search of its sorted edges), or 0. */
  private transition(state: number, letter: number): number {
    let low = this.edgeStart[state]!;
    let high = this.edgeStart[state + 1]! - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const found = this.edgeLetter[middle]!;
      if (found === letter) return this.edgeTarget[middle]!;
      if (found < letter) low = middle + 1;
      else high = middle - 1;
    }
    return 0;
  }
}

type Indexes = Uint16Array | Int32Array;

/**
 * Symbol → letter, read once per character of a submission: ASCII by index, the rest by open
 * addressing in two typed arrays (several times quicker than a Map, and as small as the alphabet).
 */
class LetterTable {
  private readonly ascii = new Int32Array(128);
  private readonly keys: Int32Array;
  private readonly values: Int32Array;
  private readonly mask: number;

  constructor(alphabet: Map<number, number>) {
    let size = 16;
    while (size < alphabet.size * 2) size *= 2;
    this.keys = new Int32Array(size).fill(-1);
    this.values = new Int32Array(size);
    this.mask = size - 1;
    for (const [symbol, letter] of alphabet) {
      if (symbol < 128) {
        this.ascii[symbol] = letter;
        continue;
      }
      let slot = this.slotOf(symbol);
      while (this.keys[slot] !== -1) slot = (slot + 1) & this.mask;
      this.keys[slot] = symbol;
      this.values[slot] = letter;
    }
  }

  /** The letter of `symbol`, or 0 when no phrase holds it. */
  get(symbol: number): number {
    if (symbol < 128) return this.ascii[symbol]!;
    for (let slot = this.slotOf(symbol); ; slot = (slot + 1) & this.mask) {
      const key = this.keys[slot]!;
      if (key === symbol) return this.values[slot]!;
      if (key === -1) return 0;
    }
  }

  private slotOf(symbol: number): number {
    return (Math.imul(symbol, 0x9e3779b1) >>> 0) & this.mask;
  }
}
