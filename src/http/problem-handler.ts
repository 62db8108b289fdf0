import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorObject } from 'ajv';
import { StorageFailureLog } from '../domain/storage-failure-log.js';
import { clip, ProblemError, readOnly, RETRY_AFTER_UNAVAILABLE_SECONDS, storageUnavailable } from '../errors.js';
import { problemBody } from '../web/problem-body.js';
import { CUT_OFF_MESSAGE, requestCutOff } from '../web/request-cut-off.js';
import { describeValidation } from '../web/validation.js';
import { bearerChallenge } from './bearer-challenge.js';
import { type NotFoundPage, wantsPage } from './browser-pages.js';

/** Whether an error says the database cannot take a write right now: db's knowledge, handed in through the context. */
export type StorageCheck = (error: unknown) => boolean;

/**
 * Answers `problem` as `application/problem+json`, with Retry-After on a 503 and the bearer
 * challenge (WWW-Authenticate) on a refused token or scope, unless the route set its own.
 */
export function sendProblem(reply: FastifyReply, docsUrl: () => string, problem: ProblemError): FastifyReply {
  if (problem.status === 503) reply.header('retry-after', String(RETRY_AFTER_UNAVAILABLE_SECONDS));
  const challenge = bearerChallenge(problem, reply.request.headers.authorization);
  if (challenge !== null && !reply.hasHeader('www-authenticate')) reply.header('www-authenticate', challenge);
  return reply
    .code(problem.status)
    .type('application/problem+json')
    .send(problemBody(docsUrl(), problem.code, problem.detail, problem.extra));
}

/**
 * One place that turns every failure into `application/problem+json`; 5xx details stay in the log.
 * A browser asking for a page outside the API (an unknown address whose path holds a NUL) gets a page.
 */
export function installProblemHandler(app: FastifyInstance, docsUrl: () => string, isStorageUnavailable: StorageCheck, pages?: NotFoundPage): void {
  const storageFailures = new StorageFailureLog();
  app.setErrorHandler((error: FastifyError | ProblemError, request: FastifyRequest, reply: FastifyReply) => {
    if (!(error instanceof ProblemError) && requestCutOff(request.raw)) {
      request.log.info({ reason: 'client_aborted' }, CUT_OFF_MESSAGE);
      return reply.code(400).send();
    }
    const problem = toProblem(error, isStorageUnavailable, readOnly(request));
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
export function answerFrameworkError(docsUrl: () => string, isStorageUnavailable: StorageCheck, pages?: NotFoundPage) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    reply.header('x-request-id', request.id);
    const problem = toProblem(error, isStorageUnavailable, readOnly(request));
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

/** The words for the part of a request Fastify's validation names (`validationContext`). */
const VALIDATED_PART: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'headers' };

function toProblem(error: FastifyError | ProblemError, isStorageUnavailable: StorageCheck, reading: boolean): ProblemError {
  if (error instanceof ProblemError) return error;
  if (isStorageUnavailable(error)) return storageUnavailable(reading);
  const e = error as FastifyError & { validationContext?: string };
  if (e.validation) {
    const where = VALIDATED_PART[e.validationContext ?? ''] ?? 'request';
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
