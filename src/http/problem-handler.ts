import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorObject } from 'ajv';
import { PROBLEMS, ProblemError, problemAnchor, RETRY_AFTER_UNAVAILABLE_SECONDS, type ProblemCode } from '../errors.js';

/** Builds the problem document of 2.6 for a code. */
export function problemBody(docsUrl: string, code: ProblemCode, detail: string, extra: Record<string, unknown> = {}) {
  const { status, title } = PROBLEMS[code];
  return { type: `${docsUrl}#${problemAnchor(code)}`, title, status, detail, code, ...extra };
}

export function sendProblem(reply: FastifyReply, docsUrl: () => string, problem: ProblemError): FastifyReply {
  if (problem.status === 503) reply.header('retry-after', String(RETRY_AFTER_UNAVAILABLE_SECONDS));
  return reply
    .code(problem.status)
    .type('application/problem+json')
    .send(problemBody(docsUrl(), problem.code, problem.detail, problem.extra));
}

/** One place that turns every failure into `application/problem+json`; 5xx details stay in the log. */
export function installProblemHandler(app: FastifyInstance, docsUrl: () => string): void {
  app.setErrorHandler((error: FastifyError | ProblemError, request: FastifyRequest, reply: FastifyReply) => {
    const problem = toProblem(error);
    if (problem.status >= 500) request.log.error({ err: error }, 'request failed');
    return sendProblem(reply, docsUrl, problem);
  });
}

function toProblem(error: FastifyError | ProblemError): ProblemError {
  if (error instanceof ProblemError) return error;
  const e = error as FastifyError & { validationContext?: string };
  if (e.validation) {
    const where = e.validationContext === 'body' ? 'body' : 'query';
    return new ProblemError('validation_error', `The request ${where} is invalid.`, { errors: describeValidation(e.validation as ErrorObject[]) });
  }
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ProblemError('validation_error', 'The body must be JSON.', { errors: ['body: Content-Type must be application/json'] });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ProblemError('validation_error', 'The body is empty.', { errors: ['body: must be a JSON object, got an empty body'] });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ProblemError('payload_too_large', 'The request body is too large.');
  }
  if (e.statusCode === 400 && (e instanceof SyntaxError || e.code === 'FST_ERR_CTP_INVALID_JSON_BODY')) {
    return new ProblemError('validation_error', 'The body is not valid JSON.', { errors: ['body: is not valid JSON'] });
  }
  if (e.statusCode === 413) return new ProblemError('payload_too_large', 'The request body is too large.');
  if (e.statusCode && e.statusCode >= 400 && e.statusCode < 500) {
    return new ProblemError('validation_error', 'The request is invalid.', { errors: [e.message] });
  }
  return new ProblemError('internal_error', 'The server failed to handle the request; it has been logged.');
}

/** Ajv errors as "field: problem", one per field and problem, in the order found. */
export function describeValidation(errors: ErrorObject[]): string[] {
  const seen = new Set<string>();
  for (const error of errors) {
    const line = describeOne(error);
    if (line) seen.add(line);
  }
  return [...seen];
}

function describeOne(error: ErrorObject): string | null {
  const field = error.instancePath
    .split('/')
    .slice(1)
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join('');
  const at = (name: string) => (field ? `${field}.${name}` : name);
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${at(String(p.missingProperty))}: is required`;
    case 'additionalProperties':
      return `${at(String(p.additionalProperty))}: is not a known field`;
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
