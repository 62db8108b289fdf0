import { formatTime } from './time-zone.js';
import { isFileValue } from '../services/export-fields.js';
import { withoutHiddenCharacters } from '../domain/uploads.js';
import { cutText } from '../domain/cut-text.js';
import { FIRST_LINE_LENGTH, fieldsOf, firstLineOf, whoOf } from '../domain/submission-summary.js';
/** How the dashboard's lists read submitted fields: a line per submission, and each value in one short line. */

/** A cell shows this many characters of a value; its own page shows all of it. */
export const CELL_LENGTH = 80;

/** A field's name as a line's label: a visitor named it, so no bidirectional control or invisible character (issue 38, item 17). */
export function fieldLabel(name: string): string {
  return withoutHiddenCharacters(name);
}

/** A value on one line: nested objects as `key: value; …`, arrays as `a, b`, empty ones as nothing. */
export function compactValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(compactValue).join(', ');
  // a file: its name (the submission's page lists its type, size and download)
  if (isFileValue(value)) return withoutHiddenCharacters(value.name);
  if (typeof value === 'object') {
    return Object.entries(value)
      .map(([key, inner]) => `${key}: ${compactValue(inner)}`)
      .join('; ');
  }
  return String(value).replace(/\s+/g, ' ').trim();
}

/** The value cut to `length` characters (whole code points), with an ellipsis when cut. */
export function cut(text: string, length = CELL_LENGTH): string {
  return cutText(text, length);
}

/** A row's first fields as `name: value` lines, for the lists without columns (spam, held). */
export function summaryOf(data: unknown, count = 3): { name: string; value: string }[] {
  return Object.entries(fieldsOf(data))
    .slice(0, count)
    .map(([name, value]) => ({ name: fieldLabel(name), value: cut(compactValue(value)) }));
}

/** A time as the dashboard writes it, in the viewer's zone ("24 Nov 2026, 10:02 UTC"), for labels that cannot hold a `<time>`. */
export function timeText(ms: number): string {
  return formatTime(ms).text;
}

/** How many fields a line without a message-like field reads, at most. */
const LINE_FIELDS = 6;

/**
 * A submission as a list's line names it: who sent it (null when no field names anybody) and the
 * first line of what it says; without a message-like field, its other fields as `name: value`.
 */
export function listLineOf(data: unknown): { who: string | null; preview: string } {
  const fields = fieldsOf(data);
  const who = whoOf(fields);
  const first = firstLineOf(fields);
  if (first !== '') return { who, preview: first };
  const rest = Object.entries(fields)
    .slice(0, LINE_FIELDS)
    .map(([name, value]) => [fieldLabel(name), cut(compactValue(value), FIRST_LINE_LENGTH)] as const)
    .filter(([, value]) => value !== '' && value !== who);
  return { who, preview: cut(rest.map(([name, value]) => `${name}: ${value}`).join(' · '), FIRST_LINE_LENGTH) };
}
