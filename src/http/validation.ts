import type { ValidateFunction } from 'ajv';
import type { FastifyInstance } from 'fastify';
import { validationError } from '../errors.js';
import { bodyAjv, queryAjv } from '../web/validation.js';

/**
 * Two Ajv instances: bodies are validated strictly (no type coercion, an unknown field refused, so
 * a misspelt setting is never silently ignored), while query strings and paths coerce their text
 * into the declared types and drop the parameters they do not declare: a cache-busting `_=` (jQuery's
 * `cache: false`) or a tracking parameter changes nothing a list answers, and a declared parameter
 * with a bad value is still refused.
 */
export function installValidators(app: FastifyInstance): void {
  const strict = bodyAjv();
  const coercing = queryAjv();
  // Compiled at each route's first request rather than before listening, for a quicker start.
  app.setValidatorCompiler(({ schema, httpPart }) => validatorOnFirstUse(() => (httpPart === 'body' ? strict : coercing).compile(schema)));
  app.addHook('preValidation', async (request) => {
    for (const [part, value] of [
      ['body', request.body],
      ['query', request.query],
      ['params', request.params],
    ] as const) {
      const found = unstorablePath(value, '');
      if (found === null) continue;
      const field = found.path || part;
      if (found.nul)
        throw validationError([`${field}: must not contain the character U+0000`], 'The request holds a U+0000 (NUL) character, which cannot be stored.');
      throw validationError(
        [`${field}: must be valid Unicode (it holds a lone UTF-16 surrogate)`],
        'The request holds a lone UTF-16 surrogate, which is no character.',
      );
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

const UNSTORABLE = /[\0\p{Cs}]/u;
const UNSTORABLE_ALL = /[\0\p{Cs}]/gu;

interface Unstorable {
  path: string;
  nul: boolean;
}

function unstorableIn(text: string, path: string): Unstorable | null {
  const match = UNSTORABLE.exec(text);
  return match ? { path, nul: match[0] === '\0' } : null;
}

/**
 * Where `value` holds U+0000 or a lone UTF-16 surrogate (`"\ud800"`) in a string or a key (`name`,
 * `a.b[0]`; '' for `value` itself), or null. PostgreSQL cannot store U+0000 (the write failed with
 * a 500) and SQLite stored a lone surrogate as invalid UTF-8, so the API refuses both on either database.
 * NOTE: the JSON parser has already refused bodies nested more than API_JSON_DEPTH deep: the recursion is bounded.
 */
function unstorablePath(value: unknown, path: string): Unstorable | null {
  if (typeof value === 'string') return unstorableIn(value, path);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = unstorablePath(value[i], `${path}[${i}]`);
      if (found !== null) return found;
    }
  } else if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      const shown = key.replace(UNSTORABLE_ALL, '\uFFFD');
      const here = path ? `${path}.${shown}` : shown;
      const found = unstorableIn(key, here) ?? unstorablePath(inner, here);
      if (found !== null) return found;
    }
  }
  return null;
}
