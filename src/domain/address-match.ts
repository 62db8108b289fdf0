/**
 * Erasing a person (issue 27) finds the submissions that hold their email address. The address
 * counts as a whole value or inside a longer text, never as the tail or head of a longer address:
 * `ann@x.com` is in "Ann <ann@x.com>" and "write to ann@x.com.", not in `joann@x.com` or
 * `ann@x.com.au`.
 */

// What may stand before an address's first character as part of a longer address: letters, digits
// and the punctuation real addresses use (RFC 5322 allows more, e.g. `=` or `/`, but those appear far
// more often as separators, as in `email=ann@x.com`).
const LOCAL_CHAR = /[\p{L}\p{N}._%+-]/u;
// What continues a domain: a label character, or a dot followed by one.
const DOMAIN_CHAR = /[\p{L}\p{N}_-]/u;

/** The shape an address to erase must have: one `@` between a name and a domain, no spaces, at most 254 characters. */
export function erasureAddressProblem(address: string): string | null {
  const trimmed = address.trim();
  if (trimmed.length === 0) return 'email: enter the email address to look for';
  if (trimmed.length > 254) return 'email: must be at most 254 characters';
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/u.test(trimmed)) return 'email: must be an email address, such as ann@example.com';
  return null;
}

/** Whether `text` holds `address` (lower-cased already) as a whole address, case-insensitively. */
export function textHoldsAddress(text: string, address: string): boolean {
  const haystack = text.toLowerCase();
  for (let at = haystack.indexOf(address); at !== -1; at = haystack.indexOf(address, at + 1)) {
    const before = haystack[at - 1];
    const end = at + address.length;
    const after = haystack[end];
    if (before !== undefined && LOCAL_CHAR.test(before)) continue;
    if (after !== undefined && (DOMAIN_CHAR.test(after) || (after === '.' && DOMAIN_CHAR.test(haystack[end + 1] ?? '')))) continue;
    return true;
  }
  return false;
}

/** Whether any string value in `value` (a submission's fields, nested lists and objects too) holds `address`. */
export function valuesHoldAddress(value: unknown, address: string): boolean {
  if (typeof value === 'string') return textHoldsAddress(value, address);
  if (Array.isArray(value)) return value.some((item) => valuesHoldAddress(item, address));
  if (value !== null && typeof value === 'object') return Object.values(value).some((item) => valuesHoldAddress(item, address));
  return false;
}
