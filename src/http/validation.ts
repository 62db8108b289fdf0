import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { validationError } from '../errors.js';

/**
 * Two Ajv instances: bodies are validated strictly (no type coercion, nothing silently removed),
 * while query strings and paths coerce their text into the declared types.
 */
export function installValidators(app: FastifyInstance): void {
  const common = { allErrors: true, removeAdditional: false, useDefaults: true, strict: false } as const;
  const strict = addFormats.default(new Ajv.default({ ...common, coerceTypes: false }));
  const coercing = addFormats.default(new Ajv.default({ ...common, coerceTypes: 'array' }));
  // Compiled at each route's first request rather than before listening, for a quicker start.
  app.setValidatorCompiler(({ schema, httpPart }) => validatorOnFirstUse(() => (httpPart === 'body' ? strict : coercing).compile(schema)));
  app.addHook('preValidation', async (request) => {
    for (const [part, value] of [['body', request.body], ['query', request.query], ['params', request.params]] as const) {
      const at = nulPath(value, '');
      if (at !== null) throw validationError([`${at || part}: must not contain the character U+0000`], 'The request holds a U+0000 (NUL) character, which cannot be stored.');
    }
  });
}

/** A validator that compiles its schema when first called; Fastify reads `errors` after each call. */
function validatorOnFirstUse(compile: () => ValidateFunction): ValidateFunction {
  let validate: ValidateFunction | undefined;
  const check = ((data: unknown) => {
    validate ??= compile();
    const valid = validate(data);
    check.errors = validate.errors;
    return valid;
  }) as ValidateFunction;
  check.errors = null;
  return check;
}

/**
 * Where `value` holds U+0000 in a string or a key (`name`, `a.b[0]`; '' for `value` itself), or null.
 * PostgreSQL cannot store it (the write failed with a 500), so the API refuses it on either database.
 */
function nulPath(value: unknown, path: string): string | null {
  if (typeof value === 'string') return value.includes('\0') ? path : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const at = nulPath(value[i], `${path}[${i}]`);
      if (at !== null) return at;
    }
  } else if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      const here = path ? `${path}.${key.replaceAll('\0', '\uFFFD')}` : key.replaceAll('\0', '\uFFFD');
      if (key.includes('\0')) return here;
      const at = nulPath(inner, here);
      if (at !== null) return at;
    }
  }
  return null;
}
