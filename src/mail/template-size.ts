/** The most characters a template's code may hold. */
export const MAX_TEMPLATE_CHARS = 262_144;

/**
 * The most placeholders, blocks and helper calls one template may hold. Compiling takes memory in
 * proportion (about 13 KB each: 10,000 fill a template thread's 128 MB), and a thread that runs out
 * of its heap can abort the whole process rather than end alone (Node's worker resource limits are
 * best-effort: nodejs/node#47224), so a bigger template is refused before it is compiled.
 */
export const MAX_TEMPLATE_STATEMENTS = 2_000;

/** How deep blocks (`{{#…}}`, `{{else if}}`) and helper calls (`(…)`) may nest: Handlebars' parser slows steeply with depth (4,000: minutes). */
export const MAX_TEMPLATE_DEPTH = 32;

/** The most names and values inside tags (each part of a dotted path counts): what Handlebars' lexer and parser spend their time on. */
export const MAX_TEMPLATE_WORDS = 10_000;

/** What a template holds, counted in its text before Handlebars sees it. */
export interface TemplateSize {
  statements: number;
  depth: number;
  words: number;
}

/**
 * Counts what makes a template costly to parse and compile, in one pass over its text: the same
 * answer for the same code on any machine, however busy. Handlebars' own lexer is too slow to ask
 * (seconds for 262,144 characters of tags), so this reads the tags as it does, erring on the side
 * of counting more (a tag inside a raw block counts).
 */
export function measureTemplate(code: string): TemplateSize {
  const size: TemplateSize = { statements: 0, depth: 0, words: 0 };
  // the depth each open block adds: 1, and 1 more per `{{else if …}}` of its chain
  const blocks: number[] = [];
  let blockDepth = 0;
  let i = code.indexOf('{{');
  while (i !== -1) {
    if (code[i - 1] === '\\' && code[i - 2] !== '\\') {
      // `\{{` is text
      i = code.indexOf('{{', i + 2);
      continue;
    }
    let j = i + 2;
    while (code[j] === '{' || code[j] === '~') j++;
    if (code[j] === '!') {
      const end = code.startsWith('--', j + 1) ? code.indexOf('--', j + 3) : j;
      const close = end === -1 ? -1 : code.indexOf('}}', end);
      i = close === -1 ? -1 : code.indexOf('{{', close + 2);
      continue;
    }
    const kind = code[j];
    const keyword = /^\s*(else)?(?=[\s~}])/.exec(code.slice(j, j + 16));
    if (kind === '/') {
      blockDepth -= blocks.pop() ?? 0;
      j++;
    } else if (kind === '^' && /^\^\s*~?\}\}/.test(code.slice(j, j + 16))) {
      // `{{^}}`: an else
    } else if (kind === '#' || kind === '^') {
      size.statements++;
      blocks.push(1);
      blockDepth++;
      j++;
    } else if (keyword?.[1] === 'else') {
      j += keyword[0].length;
      if (!/^\s*~?\}\}/.test(code.slice(j, j + 16))) {
        // `{{else if …}}`: a block inside the one before
        size.statements++;
        if (blocks.length > 0) blocks[blocks.length - 1]!++;
        blockDepth++;
      }
    } else {
      size.statements++;
    }
    size.depth = Math.max(size.depth, blockDepth);
    j = readTag(code, j, blockDepth, size);
    i = j === -1 ? -1 : code.indexOf('{{', j);
  }
  return size;
}

const WORD_END = new Set([' ', '\t', '\n', '\r', '\f', '(', ')', '=', '.', '/', '|', '~', '}', '"', "'"]);

/** Reads one tag's inside from `j` to its `}}`, counting words and helper calls; returns where it ends (-1: never). */
function readTag(code: string, j: number, blockDepth: number, size: TemplateSize): number {
  let calls = 0;
  while (j < code.length) {
    const c = code[j]!;
    if (c === '}' && code[j + 1] === '}') return j + 2;
    if (c === '"' || c === "'") {
      const end = code.indexOf(c, j + 1);
      size.words++;
      if (end === -1) return -1;
      j = end + 1;
    } else if (c === '(') {
      size.statements++;
      calls++;
      size.depth = Math.max(size.depth, blockDepth + calls);
      j++;
    } else if (c === ')') {
      calls = Math.max(0, calls - 1);
      j++;
    } else if (WORD_END.has(c)) {
      j++;
    } else {
      size.words++;
      while (j < code.length && !WORD_END.has(code[j]!)) j++;
    }
  }
  return -1;
}

/** Why a write is refused for its size: the first limit it passes (chars, then statements, depth, words), or null. */
export function templateSizeError(code: string): string | null {
  if (code.length > MAX_TEMPLATE_CHARS) return `code: longer than ${MAX_TEMPLATE_CHARS} characters`;
  const size = measureTemplate(code);
  if (size.statements > MAX_TEMPLATE_STATEMENTS)
    return `code: ${size.statements} placeholders, blocks and helper calls, more than the ${MAX_TEMPLATE_STATEMENTS} a template may hold`;
  if (size.depth > MAX_TEMPLATE_DEPTH)
    return `code: blocks and helper calls nested ${size.depth} deep, deeper than the ${MAX_TEMPLATE_DEPTH} a template may nest`;
  if (size.words > MAX_TEMPLATE_WORDS) return `code: ${size.words} names and values inside tags, more than the ${MAX_TEMPLATE_WORDS} a template may hold`;
  return null;
}
