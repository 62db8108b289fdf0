import { FORBIDDEN_PATH_PARTS } from './template-engine.js';

// A name Handlebars reads as a plain path segment; anything else goes in brackets (`data.[first name]`).
const PLAIN_SEGMENT = /^[A-Za-z_$][\w$]*$/;
// Words the Handlebars lexer reads as literals or keywords, not names: bracketed too.
const LITERALS = new Set(['true', 'false', 'null', 'undefined', 'this', 'else', 'as']);
// How deep nested fields are listed (`data.car.color`), and how many at most.
const MAX_DEPTH = 3;
const MAX_FIELDS = 100;

/**
 * The placeholder that prints a submitted field, `path` being its names from the top
 * (`['car', 'color']` → `{{data.car.color}}`, `['first name']` → `{{data.[first name]}}`), or null
 * when a template cannot name it (a forbidden name, a line break, a backslash): `{{#each data}}` still lists it.
 */
export function placeholderFor(path: string[]): string | null {
  const segments: string[] = [];
  for (const name of path) {
    if (name === '' || FORBIDDEN_PATH_PARTS.has(name) || /[\\\p{Cc}]/u.test(name)) return null;
    segments.push(PLAIN_SEGMENT.test(name) && !LITERALS.has(name) ? name : `[${name.replace(/\]/g, '\\]')}]`);
  }
  return `{{data.${segments.join('.')}}}`;
}

/**
 * The field paths of some submissions' data, in the order first seen: every top-level name, and
 * the names inside objects (lists print as a whole). At most 100, at most 3 deep.
 */
export function fieldPaths(samples: Record<string, unknown>[]): string[][] {
  const seen = new Map<string, string[]>();
  const walk = (value: Record<string, unknown>, prefix: string[]) => {
    for (const [name, child] of Object.entries(value)) {
      if (seen.size >= MAX_FIELDS) return;
      const path = [...prefix, name];
      const key = JSON.stringify(path);
      if (!seen.has(key)) seen.set(key, path);
      if (child && typeof child === 'object' && !Array.isArray(child) && path.length < MAX_DEPTH) walk(child as Record<string, unknown>, path);
    }
  };
  for (const sample of samples) walk(sample, []);
  return [...seen.values()];
}
