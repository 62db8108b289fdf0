/** Names deeper than this are stored literally; JSON bodies deeper than this are refused. */
export const MAX_DEPTH = 8;
const MAX_INDEX = 999;

// The tree of a form-encoded body while it is built. Keys live in Maps, so no name can reach a prototype.
type Segment = string | number | null; // key, array index, `[]` (append)
type Node = string | Branch;
interface Branch {
  array: boolean;
  entries: Map<string | number, Node>;
  next: number;
}

/** The fields of one submission, built up pair by pair before they become its `data`. */
export type FieldTree = Branch;

/** One tree per submission: the caller places every data field in it, then builds `data`. */
export function createFieldTree(): FieldTree {
  return branch(false);
}

/**
 * Puts one value where its name points (`a.b`, `a[0]`, `a[]`, `a[key]`). A name that cannot be
 * followed — malformed, deeper than 8 segments, an index past 999, or a path running into a
 * string or into an object where an array is needed (or the reverse) — is stored under its
 * literal full name at the top level instead, so no value is lost and nothing throws. A value
 * landing where one already is joins it in an array: repeated names (checkboxes) keep every value.
 */
export function placeField(root: FieldTree, name: string, value: string): void {
  const path = parsePath(name);
  if (!path || !placeAt(root, path, value)) placeAt(root, [name], value);
}

function placeAt(root: Branch, path: Segment[], value: string): boolean {
  let node = root;
  for (let i = 0; i < path.length - 1; i++) {
    const segment = path[i] ?? null;
    const wantArray = typeof path[i + 1] !== 'string';
    const child = segment === null ? undefined : node.entries.get(segment);
    if (child === undefined) node = setChild(node, segment, branch(wantArray));
    else if (typeof child !== 'string' && child.array === wantArray) node = child;
    else return false;
  }
  const last = path[path.length - 1] ?? null;
  const existing = last === null ? undefined : node.entries.get(last);
  if (existing === undefined) setChild(node, last, value);
  else if (typeof existing !== 'string' && existing.array) setChild(existing, null, value);
  else setChild(node, last, branch(true, [existing, value]));
  return true;
}

const SEGMENT = /\.([^.[]+)|\[([^\]]*)\]/y;

/** Where a name points (`a.b[0]` → ['a', 'b', 0]; `[]` is null), or null when it is stored under its literal name. */
export function fieldPath(name: string): Segment[] | null {
  return parsePath(name);
}

function parsePath(name: string): Segment[] | null {
  const headEnd = name.search(/[.[]/);
  // NOTE: every literal full name holds a '.' or '[', so it never meets a key made by a first segment.
  if (headEnd === -1) return [name];
  if (headEnd === 0) return null;
  const path: Segment[] = [name.slice(0, headEnd)];
  SEGMENT.lastIndex = headEnd;
  while (SEGMENT.lastIndex < name.length) {
    const match = SEGMENT.exec(name);
    if (!match || path.length === MAX_DEPTH) return null;
    const [, key, inBrackets] = match;
    if (key !== undefined) path.push(key);
    else if (!inBrackets) path.push(null);
    else if (!/^\d+$/.test(inBrackets)) path.push(inBrackets);
    else if (Number(inBrackets) <= MAX_INDEX) path.push(Number(inBrackets));
    else return null;
  }
  return path;
}

function branch(array: boolean, values: Node[] = []): Branch {
  return { array, entries: new Map(values.map((value, i) => [i, value])), next: values.length };
}

function setChild<T extends Node>(node: Branch, segment: Segment, child: T): T {
  const key = segment ?? node.next;
  node.entries.set(key, child);
  if (typeof key === 'number') node.next = Math.max(node.next, key + 1);
  return child;
}

/** The stored `data`: plain JSON objects and arrays; indexes compact in order (`a[5]=x&a[2]=y` → ['y', 'x']). */
export function buildData(tree: FieldTree): Record<string, unknown> {
  return toPlain(tree) as Record<string, unknown>;
}

function toPlain(node: Node): unknown {
  if (typeof node === 'string') return node;
  const entries = [...node.entries];
  if (node.array) return entries.sort(([a], [b]) => Number(a) - Number(b)).map(([, child]) => toPlain(child));
  const object = {};
  for (const [key, child] of entries) defineOwn(object, String(key), toPlain(child));
  return object;
}

/** Sets an own, enumerable property even for `__proto__`, where plain assignment would call the prototype's setter. */
export function defineOwn(target: object, key: string, value: unknown): void {
  // NOTE: `__proto__` is Object.prototype's only setter; defining every key cost ~5 times an assignment.
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else (target as Record<string, unknown>)[key] = value;
}
