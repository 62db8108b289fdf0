import { fieldPath } from './field-paths.js';
import { isBlankValue, type ParsedSubmission } from './fields.js';

const BUILT_IN_TRAPS = ['_honeypot', '_gotcha'];

/**
 * Whether a spam trap was filled: `_honeypot`, `_gotcha` (always active) or the form's own trap
 * field. People never see these inputs, so any value in one means a bot filled the form, whatever
 * its shape: repeated, `trap[]`, `trap.a`, a JSON object or array.
 */
export function honeypotFilled(parsed: ParsedSubmission, customTrap: string | null): boolean {
  const traps = customTrap ? [...BUILT_IN_TRAPS, customTrap] : BUILT_IN_TRAPS;
  for (const trap of traps) {
    if (trap.startsWith('_') ? controlFilled(parsed, trap) : dataFilled(parsed.data, trap)) return true;
  }
  return false;
}

/** The form's own trap field is not data: once it has been checked empty, it is not stored, in any shape. */
export function removeTrapField(parsed: ParsedSubmission, customTrap: string | null): void {
  if (!customTrap || customTrap.startsWith('_')) return;
  for (const key of Object.keys(parsed.data)) if (isUnder(key, customTrap)) delete parsed.data[key];
  const path = fieldPath(customTrap);
  if (path && path.length > 1) removeAt(parsed.data, path);
}

/** `_gotcha`, `_gotcha[]`, `_gotcha[0]`, `_gotcha.a`: a name is under a trap when it is the trap or a path below it. */
function isUnder(name: string, trap: string): boolean {
  return name === trap || (name.startsWith(trap) && (name[trap.length] === '.' || name[trap.length] === '['));
}

function controlFilled(parsed: ParsedSubmission, trap: string): boolean {
  for (const name of parsed.filledControls) if (isUnder(name, trap)) return true;
  return false;
}

// Data fields are built into objects and arrays (`trap[]`, `trap.a`), and a name that could not be
// followed is kept under its literal name (`trap[99999]`): both places are looked at.
function dataFilled(data: Record<string, unknown>, trap: string): boolean {
  for (const key of Object.keys(data)) if (isUnder(key, trap) && !isBlankValue(data[key])) return true;
  const path = fieldPath(trap);
  return path !== null && path.length > 1 && !isBlankValue(valueAt(data, path));
}

// An index or `[]` in a trap's own name stands for the whole array: indexes are compacted when built.
function valueAt(data: Record<string, unknown>, path: (string | number | null)[]): unknown {
  let value: unknown = data;
  for (const segment of path) {
    if (Array.isArray(value) || typeof segment !== 'string') return value;
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, segment)) return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}

function removeAt(data: Record<string, unknown>, path: (string | number | null)[]): void {
  let parent: unknown = data;
  for (let i = 0; i < path.length - 1; i++) {
    const segment = path[i];
    if (typeof segment !== 'string' || parent === null || typeof parent !== 'object' || Array.isArray(parent) || !Object.hasOwn(parent, segment)) return;
    parent = (parent as Record<string, unknown>)[segment];
  }
  const last = path[path.length - 1];
  if (typeof last === 'string' && parent !== null && typeof parent === 'object' && !Array.isArray(parent)) delete (parent as Record<string, unknown>)[last];
}
