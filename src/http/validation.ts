import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

/**
 * Two Ajv instances: bodies are validated strictly (no type coercion, nothing silently removed),
 * while query strings and paths coerce their text into the declared types.
 */
export function installValidators(app: FastifyInstance): void {
  const common = { allErrors: true, removeAdditional: false, useDefaults: true, strict: false } as const;
  const strict = addFormats.default(new Ajv.default({ ...common, coerceTypes: false }));
  const coercing = addFormats.default(new Ajv.default({ ...common, coerceTypes: 'array' }));
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? strict : coercing).compile(schema));
}
