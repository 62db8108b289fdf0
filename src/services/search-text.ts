/** What `search` matches: every field name and value, lower-cased, one per line. */
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
  return parts.join('\n').toLowerCase();
}
