import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorObject } from 'ajv';
import { isStorageUnavailable, StorageFailureLog, storageUnavailable } from '../db/storage-errors.js';
import { clip, PROBLEMS, ProblemError, problemAnchor, RETRY_AFTER_UNAVAILABLE_SECONDS, type ProblemCode } from '../errors.js';
import { type NotFoundPage, wantsPage } from './browser-pages.js';

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

/**
 * One place that turns every failure into `application/problem+json`; 5xx details stay in the log.
 * A browser asking for a page outside the API (an unknown address whose path holds a NUL) gets a page.
 */
export function installProblemHandler(app: FastifyInstance, docsUrl: () => string, pages?: NotFoundPage): void {
  const storageFailures = new StorageFailureLog();
  app.setErrorHandler((error: FastifyError | ProblemError, request: FastifyRequest, reply: FastifyReply) => {
    const problem = toProblem(error);
    if (problem.code === 'storage_unavailable' && !(error instanceof ProblemError)) storageFailures.note(request.log, error);
    else if (problem.status >= 500) request.log.error({ err: error }, 'request failed');
    if (wantsPage(request, pages)) return pages.problemPage(reply, problem);
    return sendProblem(reply, docsUrl, problem);
  });
}

/**
 * Fastify's `frameworkErrors` option: a URL its router cannot take (a malformed percent escape, a
 * path segment over `maxParamLength`) would otherwise get Fastify's own JSON, quoting the whole URL.
 * A browser asking for a page (outside the API) gets the dashboard's error page instead.
 */
export function answerFrameworkError(docsUrl: () => string, pages?: NotFoundPage) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    reply.header('x-request-id', request.id);
    const problem = toProblem(error);
    if (problem.status >= 500) request.log.error({ err: error }, 'request failed');
    if (wantsPage(request, pages)) return pages.problemPage(reply, problem);
    return sendProblem(reply, docsUrl, problem);
  };
}

/**
 * Fastify answers a request that arrives while it closes (on a connection still open) with a 503 of
 * its own JSON (`return503OnClosing`, turned off): here it is `503 shutting_down` from the catalogue.
 */
export function installClosingAnswer(app: FastifyInstance, docsUrl: () => string): void {
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', async (_request, reply) => {
    if (!closing) return;
    reply.header('connection', 'close');
    return sendProblem(reply, docsUrl, new ProblemError('shutting_down', 'This instance is shutting down; send the request again.'));
  });
}

function toProblem(error: FastifyError | ProblemError): ProblemError {
  if (error instanceof ProblemError) return error;
  if (isStorageUnavailable(error)) return storageUnavailable();
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
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ProblemError('validation_error', 'The body does not match its Content-Length.', { errors: ['body: is not as long as Content-Length says'] });
    case 'FST_ERR_BAD_URL':
      return new ProblemError('validation_error', 'The path is not a valid URL.', { errors: ['path: has a malformed percent escape'] });
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ProblemError('uri_too_long', 'A segment of the path is longer than 100 characters; no id is that long.');
  }
  if (e.statusCode === 400 && (e instanceof SyntaxError || e.code === 'FST_ERR_CTP_INVALID_JSON_BODY')) {
    return new ProblemError('validation_error', 'The body is not valid JSON.', { errors: ['body: is not valid JSON'] });
  }
  if (e.statusCode === 413) return new ProblemError('payload_too_large', 'The request body is too large.');
  if (e.statusCode && e.statusCode >= 400 && e.statusCode < 500) {
    // NOTE: Fastify's messages may quote the request (a content type, a URL): clipped, never at length.
    return new ProblemError('validation_error', 'The request is invalid.', { errors: [`request: ${clip(e.message)}`] });
  }
  return new ProblemError('internal_error', 'The server failed to handle the request; it has been logged.');
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
