// The layers of src/ (docs/architecture.md, "Layers"), as data: which folder sits where, and the
// arrows between them that must never exist.

/** A part of src/: its first path segment under src/ (a folder, or a file at the top). */
export type Part = string;

interface Layer {
  name: string;
  parts: readonly Part[];
}

// Top to bottom: a part may import its own layer and the layers below it, never one above.
export const LAYERS: readonly Layer[] = [
  { name: 'composition', parts: ['main.ts', 'cli', 'app.ts', 'context.ts'] },
  { name: 'surfaces', parts: ['http', 'dashboard', 'submit'] },
  { name: 'web', parts: ['web'] },
  { name: 'rules', parts: ['services', 'intake'] },
  { name: 'work', parts: ['jobs', 'mail', 'spam', 'metrics'] },
  { name: 'storage', parts: ['db', 'files'] },
  {
    name: 'leaves',
    parts: ['domain', 'errors.ts', 'ids.ts', 'version.ts', 'keyring.ts', 'private-files.ts', 'config', 'net', 'schemas'],
  },
];

const SURFACES = ['http', 'dashboard', 'submit'];

// The arrows inside a layer (or across it) that the order alone does not forbid, each with why.
const FORBIDDEN: readonly { from: readonly Part[]; to: readonly Part[]; why: string }[] = [
  { from: SURFACES, to: SURFACES, why: 'surfaces are siblings: what two of them share lives in web/' },
  { from: SURFACES, to: ['db'], why: 'surfaces reach storage through services' },
  { from: ['services'], to: ['intake'], why: 'the pipeline calls services, not the reverse' },
  { from: ['mail'], to: ['jobs'], why: 'mail builds messages; its callers enqueue them' },
];

// NOTE: the surfaces and jobs/ receive the context that composition builds, so they may name its
// type; a value import (building or reaching into it) is still forbidden.
const CONTEXT_TYPE_READERS: readonly Part[] = [...SURFACES, 'jobs'];

const DOMAIN_MAY_IMPORT: readonly Part[] = ['domain', 'errors.ts'];

/** Where a file sits: its part of src/, or null outside src/. */
export function partOf(file: string): Part | null {
  const segments = file.split('/');
  if (segments[0] !== 'src' || segments.length < 2) return null;
  return segments[1]!;
}

/** The layer of a part, by its index top to bottom, or -1 when the table does not know it. */
export function layerIndex(part: Part): number {
  return LAYERS.findIndex((layer) => layer.parts.includes(part));
}

function name(part: Part): string {
  return part.replace(/\.tsx?$/, '');
}

/** Why an import from one part to another crosses a forbidden line, or null when it may exist. */
export function forbiddenReason(from: Part, to: Part, typeOnly: boolean): string | null {
  if (from === to) return null;
  const says = `${name(from)} must not import ${name(to)}`;
  if (from === 'domain' && !DOMAIN_MAY_IMPORT.includes(to)) return `${says}: domain/ imports only domain/ and errors.ts`;
  const fromIndex = layerIndex(from);
  const toIndex = layerIndex(to);
  if (toIndex === 0 && fromIndex !== 0) {
    if (to === 'context.ts' && typeOnly && CONTEXT_TYPE_READERS.includes(from)) return null;
    return `${says}: only composition wires the program${to === 'context.ts' ? ' (a type-only import of AppContext is allowed from the surfaces and jobs/)' : ''}`;
  }
  if (toIndex < fromIndex) return `${says}: the ${LAYERS[toIndex]!.name} layer sits above the ${LAYERS[fromIndex]!.name} layer`;
  const rule = FORBIDDEN.find((r) => r.from.includes(from) && r.to.includes(to));
  return rule ? `${says}: ${rule.why}` : null;
}
