/** `path?…` with the non-empty parameters, or `path` alone: the links of a list (its filter, view and cursor). */
export function withQuery(path: string, params: Record<string, string | undefined>): string {
  const query = new URLSearchParams(Object.entries(params).filter((entry): entry is [string, string] => Boolean(entry[1]))).toString();
  return query ? `${path}?${query}` : path;
}
