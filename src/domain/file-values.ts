// The file objects of a submission's `data` (issue 28): `{ name, type, size, url }`, the url ending
// in `/files/{fileId}`. Deliveries replace or describe them; they are told apart from a visitor's
// own objects by the submission's `submission_files` rows, never by their shape alone.

/** One stored file of a submission, as a delivery shows it. */
export interface DeliveredFile {
  id: string;
  /** The input's name (the field of `data` that lists it). */
  field: string;
  name: string;
  type: string;
  size: number;
}

// NOTE: data is at most a few levels deep (intake's MAX_DEPTH); this bounds a walk of anything else
const MAX_DEPTH = 32;

/** The file id a value's `url` names (`…/files/{id}`, any query aside), or null for anything that is not such an object. */
export function fileIdOfValue(value: unknown): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const url = (value as Record<string, unknown>).url;
  if (typeof url !== 'string') return null;
  const match = /\/files\/([A-Za-z0-9_-]{1,100})(?:\?[^#]*)?$/.exec(url);
  return match ? match[1]! : null;
}

/** The file ids that objects of `data` name: the candidates to look up before anything is replaced. */
export function fileIdsNamedIn(data: unknown): string[] {
  const ids = new Set<string>();
  const walk = (value: unknown, depth: number) => {
    if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return;
    const id = fileIdOfValue(value);
    if (id) ids.add(id);
    else for (const child of Array.isArray(value) ? value : Object.values(value)) walk(child, depth + 1);
  };
  walk(data, 0);
  return [...ids];
}

/**
 * `data` with the `url` of each object that names one of `files` replaced by `link(file)`; other
 * values as they were, in the same order. Returns `data` itself when `files` is empty, so a
 * submission without files is serialised exactly as before.
 */
export function withFileLinks(data: Record<string, unknown>, files: readonly DeliveredFile[], link: (file: DeliveredFile) => string): Record<string, unknown> {
  if (files.length === 0) return data;
  const byId = new Map(files.map((file) => [file.id, file]));
  return mapFileObjects(data, (object, id) => {
    const file = byId.get(id);
    return file ? { ...object, url: link(file) } : object;
  });
}

/**
 * `data` without the `url` of any object that names a file: what the autoresponder's template reads,
 * so that no answer to a visitor carries a link to a file (not even the API's, which needs a token).
 */
export function withoutFileUrls(data: Record<string, unknown>): Record<string, unknown> {
  if (fileIdsNamedIn(data).length === 0) return data;
  return mapFileObjects(data, ({ url: _url, ...rest }) => rest);
}

// A copy of `value` with each object that names a file (by its url) replaced by `replace`'s answer.
function mapFileObjects(data: Record<string, unknown>, replace: (object: Record<string, unknown>, fileId: string) => Record<string, unknown>) {
  const walk = (value: unknown, depth: number): unknown => {
    if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map((v) => walk(v, depth + 1));
    const id = fileIdOfValue(value);
    if (id !== null) return replace(value as Record<string, unknown>, id);
    const copy: Record<string, unknown> = {};
    // NOTE: defineProperty, not `copy[key] =`: a field may be named `__proto__`
    for (const [key, child] of Object.entries(value))
      Object.defineProperty(copy, key, { value: walk(child, depth + 1), enumerable: true, writable: true, configurable: true });
    return copy;
  };
  return walk(data, 0) as Record<string, unknown>;
}

/** The file among `files` that a value of `data` stands for, if it is one. */
export function deliveredFileOf(value: unknown, files: readonly DeliveredFile[]): DeliveredFile | undefined {
  const id = fileIdOfValue(value);
  return id === null ? undefined : files.find((file) => file.id === id);
}

/** A size as people read it: `812 bytes`, `47.1 KB`, `3.2 MB` (1 KB = 1024 bytes). */
export function readableSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} byte${bytes === 1 ? '' : 's'}`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
