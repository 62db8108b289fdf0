import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import { clip } from '../errors.js';

const COMMON = { allErrors: true, removeAdditional: false, useDefaults: true, strict: false } as const;

/** The API's validator of bodies: the dashboard checks its forms with it too, so both say the same. */
export function bodyAjv(): Ajv.default {
  return addFormats.default(new Ajv.default({ ...COMMON, coerceTypes: false }));
}

/** The API's validator of query strings and paths: their text coerced into the declared types, undeclared parameters dropped. */
export function queryAjv(): Ajv.default {
  return addFormats.default(new Ajv.default({ ...COMMON, coerceTypes: 'array', removeAdditional: true }));
}

/** The most `errors` entries one answer lists: a body of 200,000 unknown keys must not be answered with each of them. */
export const MAX_LISTED_ERRORS = 50;

/** Ajv errors as "field: problem", one per field and problem, in the order found, at most MAX_LISTED_ERRORS of them. */
export function describeValidation(errors: ErrorObject[]): string[] {
  const seen = new Set<string>();
  for (const error of errors) {
    const line = describeOne(error);
    if (line) seen.add(line);
  }
  const lines = [...seen];
  if (lines.length <= MAX_LISTED_ERRORS) return lines;
  return [...lines.slice(0, MAX_LISTED_ERRORS - 1), `body: ${lines.length - MAX_LISTED_ERRORS + 1} more problems not listed`];
}

function describeOne(error: ErrorObject): string | null {
  const field = clip(
    error.instancePath
      .split('/')
      .slice(1)
      .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`))
      .join(''),
  );
  const at = (name: string) => (field ? `${field}.${name}` : name);
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${at(String(p.missingProperty))}: is required`;
    case 'additionalProperties':
      return `${at(clip(String(p.additionalProperty)))}: is not a known field`;
    case 'enum':
      return `${field || 'value'}: must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'format':
      return `${field || 'value'}: must be ${p.format === 'email' ? 'an e-mail address' : p.format === 'uri' ? 'an absolute URL' : `a valid ${String(p.format)}`}`;
    case 'type':
      return `${field || 'body'}: must be ${Array.isArray(p.type) ? p.type.join(' or ') : String(p.type)}`;
    default:
      return `${field || 'body'}: ${error.message ?? 'is invalid'}`;
  }
}
