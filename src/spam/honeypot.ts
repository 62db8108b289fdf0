import type { ParsedSubmission } from '../intake/fields.js';

const BUILT_IN_TRAPS = ['_honeypot', '_gotcha'];

/**
 * Whether a spam trap was filled: `_honeypot`, `_gotcha` (always active) or the form's own trap
 * field. People never see these inputs, so any value in one means a bot filled the form.
 */
export function honeypotFilled(parsed: ParsedSubmission, customTrap: string | null): boolean {
  for (const trap of BUILT_IN_TRAPS) if (isFilled(valueOf(parsed.controls, trap))) return true;
  if (!customTrap) return false;
  const target = customTrap.startsWith('_') ? parsed.controls : parsed.data;
  return isFilled(valueOf(target, customTrap));
}

/** The form's own trap field is not data: once it has been checked empty, it is not stored. */
export function removeTrapField(parsed: ParsedSubmission, customTrap: string | null): void {
  if (customTrap && !customTrap.startsWith('_') && Object.hasOwn(parsed.data, customTrap)) delete parsed.data[customTrap];
}

function valueOf(target: Record<string, unknown>, name: string): unknown {
  return Object.hasOwn(target, name) ? target[name] : undefined;
}

function isFilled(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === 'string') return value.trim() !== '';
  if (Array.isArray(value)) return value.some(isFilled);
  if (typeof value === 'object') return Object.values(value).some(isFilled);
  return true;
}
