import { foldForSearch } from '../domain/search-fold.js';

/** What `search` matches: every field name and value, one per line, folded (lower case, Latin letters without accents: domain/search-fold.ts). */
export function searchTextOf(data: unknown): string {
  const parts: string[] = [];
  const walk = (value: unknown) => {
    if (value === null || value === undefined) return;
    if (Array.isArray(value)) value.forEach(walk);
    else if (typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        parts.push(key);
        walk(inner);
      }
    } else parts.push(String(value));
  };
  walk(data);
  return foldForSearch(parts.join('\n'));
}
