/** A schema's objects, keyed by what they are ("trigger audit on submissions"), with their definitions as the database shows them. */
export type SchemaObjects = Map<string, string>;

/**
 * What a restored schema holds that the migrations' reference does not, holds otherwise, or lacks:
 * one line per object, naming it ("trigger audit on submissions: not made by the migrations").
 */
export function describeDifferences(reference: SchemaObjects, found: SchemaObjects): string[] {
  const differences: string[] = [];
  for (const [key, definition] of found) {
    const expected = reference.get(key);
    if (expected === undefined) differences.push(`${key}: not made by the migrations`);
    else if (expected !== definition) differences.push(`${key}: defined otherwise than the migrations make it (${clip(definition)})`);
  }
  for (const key of reference.keys()) if (!found.has(key)) differences.push(`${key}: missing`);
  return differences.sort();
}

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
