/** A spreadsheet cell: text, or a number (never escaped as a formula: `-5` as a JSON number is no formula). */
export type Cell = string | number;

/**
 * One submission's `data` as spreadsheet columns, name → cell, in the order the fields were sent.
 * The names are ones the submit surface would parse back to the same place (src/intake/field-paths.ts):
 * - objects by dotted path: `{ address: { city: 'Oslo' } }` → `address.city`; a key holding `.` or
 *   `[` in brackets instead: `{ a: { 'b.c': 1 } }` → `a[b.c]`;
 * - a list of plain values (checkboxes, `tags[]`) in one cell, joined by `, ` (as templates print
 *   lists): `{ tags: ['a', 'b'] }` → `tags` = `a, b`;
 * - a list holding objects or lists, by index: `{ items: [{ sku: 1 }] }` → `items[0].sku`;
 * - a file (`{ name, type, size, url }`, issue 28) as its link, several in one cell joined by `, `:
 *   `{ cv: { name: 'cv.pdf', …, url } }` → `cv` = the url;
 * - true and false as `true` / `false`, null and empty lists or objects as an empty cell.
 * Two values that land on one name (`{ 'a.b': 1, a: { b: 2 } }`) share its cell, joined by `, `.
 */
export function flattenFields(data: unknown): Map<string, Cell> {
  const cells = new Map<string, Cell>();
  const put = (name: string, cell: Cell) => {
    const existing = cells.get(name);
    cells.set(name, existing === undefined ? cell : `${existing}, ${cell}`);
  };
  const walk = (name: string, value: unknown) => {
    if (Array.isArray(value)) {
      if (value.every((item) => isPlain(item) || isFileValue(item)))
        put(name, value.map((item) => String(isFileValue(item) ? item.url : plainCell(item))).join(', '));
      else for (const [i, item] of value.entries()) walk(`${name}[${i}]`, item);
    } else if (isFileValue(value)) put(name, value.url);
    else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value);
      if (entries.length === 0) put(name, '');
      for (const [key, inner] of entries) walk(childName(name, key), inner);
    } else put(name, plainCell(value));
  };
  if (data !== null && typeof data === 'object' && !Array.isArray(data)) {
    for (const [key, value] of Object.entries(data)) walk(key, value);
  } else if (data !== undefined && data !== null) walk('data', data);
  return cells;
}

/**
 * A file of a submission as the intake writes it: exactly `name`, `type`, `size` and `url`. A visitor
 * who sends such an object as JSON only changes how their own field reads in a spreadsheet.
 */
export function isFileValue(value: unknown): value is { name: string; url: string } {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  const file = value as Record<string, unknown>;
  return keys.length === 4 && typeof file.name === 'string' && typeof file.type === 'string' && typeof file.size === 'number' && typeof file.url === 'string';
}

function isPlain(value: unknown): boolean {
  return value === null || typeof value !== 'object';
}

function plainCell(value: unknown): Cell {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return value;
  return String(value);
}

function childName(parent: string, key: string): string {
  // `a[b.c]` reads back as the key `b.c`; a key holding `]` cannot be bracketed, and stays dotted
  return /[.[]/.test(key) && !key.includes(']') ? `${parent}[${key}]` : `${parent}.${key}`;
}
