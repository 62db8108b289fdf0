import type { Cell } from './export-fields.js';

/**
 * What a spreadsheet may skip before it reads a cell's first character: white space of every kind
 * (space, tab, CR, LF, no-break space, U+2000–U+200A, U+3000, …), control characters, and the
 * invisible format characters (BOM, zero-width space and joiners, word joiner, bidi marks, soft
 * hyphen). A formula behind any run of these runs just as well.
 */
export const INVISIBLE = String.raw`\p{White_Space}\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}`;
/** The characters that start a formula (OWASP), with their full-width and small forms. */
export const FORMULA_START = String.raw`=+\-@\uFF1D\uFF0B\uFF0D\uFF20\uFE66\uFE62\uFE63\uFE6B\u2212`;
// anchored, and the two classes share no character: one pass over the invisible run, linear
const FORMULA = new RegExp(`^(?:[\\t\\r]|[${INVISIBLE}]*[${FORMULA_START}])`, 'u');

/**
 * A cell a spreadsheet would read as a formula gets a leading `'`, so it shows as the text it is
 * (formula injection, OWASP): its first visible character is `=` `+` `-` `@`, or it starts with a tab
 * or CR. Numbers (a JSON `-5`) are no formula and are left alone.
 */
export function neutraliseFormula(cell: Cell): Cell {
  return typeof cell === 'string' && FORMULA.test(cell) ? `'${cell}` : cell;
}
