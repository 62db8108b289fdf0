import fc from 'fast-check';

/** The part of JSON Schema the API's OpenAPI document uses. */
export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  format?: string;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
}

const SAFE_TEXT = fc.string({ minLength: 1, maxLength: 12, unit: fc.constantFrom(...'abcdefghij klmnoXYZ-_.éü€😀') });

function stringFor(schema: JsonSchema): fc.Arbitrary<string> {
  if (schema.format === 'email') return fc.constantFrom('a@example.com', 'team+forms@example.org');
  if (schema.format === 'uri') return fc.constantFrom('https://example.com/hook', 'http://example.org/a?b=c');
  if (schema.format === 'date-time') return fc.constantFrom('2026-01-01T00:00:00Z', '2030-12-31T23:59:59.999+02:00');
  const max = Math.min(schema.maxLength ?? 12, 12);
  const min = schema.minLength ?? 0;
  // by characters, never halving a surrogate pair
  return SAFE_TEXT.map((s) => [...s].slice(0, max).join('')).filter((s) => [...s].length >= min);
}

/**
 * Values a schema accepts, mostly: what a correct client sends (a valid-shaped value), for the fuzz
 * suites to mutate. Formats they cannot know (an origin's exact shape) may still be refused.
 */
export function validValue(schema: JsonSchema): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map(validValue));
  const types = [schema.type ?? 'object'].flat();
  return fc.oneof(...types.map((type) => valueOfType(type, schema)));
}

function valueOfType(type: string, schema: JsonSchema): fc.Arbitrary<unknown> {
  switch (type) {
    case 'string':
      return stringFor(schema);
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1000 });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1000, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.uniqueArray(validValue(schema.items ?? {}), { maxLength: Math.min(schema.maxItems ?? 3, 3), selector: (v) => JSON.stringify(v) });
    default: {
      const properties = schema.properties ?? {};
      if (Object.keys(properties).length === 0) return fc.dictionary(SAFE_TEXT, fc.oneof(SAFE_TEXT, fc.integer()), { maxKeys: 3 });
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, property] of Object.entries(properties)) record[name] = validValue(property);
      return fc.record(record, { requiredKeys: schema.required ?? [] });
    }
  }
}

/** Every place in a JSON value, as a list of keys from the root ([] is the root itself). */
export function placesIn(value: unknown, at: (string | number)[] = [], into: (string | number)[][] = []): (string | number)[][] {
  into.push(at);
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) placesIn(item, [...at, i], into);
  } else if (value !== null && typeof value === 'object') for (const [key, item] of Object.entries(value)) placesIn(item, [...at, key], into);
  return into;
}

/** A deep copy of `value` with `update` applied at `place` (the root when the place is empty). */
export function updateAt(value: unknown, place: (string | number)[], update: (old: unknown) => unknown): unknown {
  if (place.length === 0) return update(value);
  const [head, ...rest] = place;
  if (Array.isArray(value)) return value.map((item, i) => (i === head ? updateAt(item, rest, update) : item));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>))
    Object.defineProperty(copy, key, { value: key === head ? updateAt(item, rest, update) : item, enumerable: true, writable: true, configurable: true });
  return copy;
}
