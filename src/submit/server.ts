import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { AppContext } from '../context.js';
import { clip, ProblemError, readOnly, RETRY_AFTER_UNAVAILABLE_SECONDS, storageUnavailable } from '../errors.js';
import { answerClientError, ignoreUnknownExpectations } from '../web/client-error.js';
import { ConnectionDrain, type DrainOptions, type DrainOutcome, KEEP_ALIVE_TIMEOUT_MS } from '../web/connection-drain.js';
import { problemBody } from '../web/problem-body.js';
import { requestId } from '../web/request-id.js';
import { requestLogLevel } from '../web/request-log-level.js';
import { StorageFailureLog } from '../domain/storage-failure-log.js';
import { fieldsFromPairs } from '../intake/fields.js';
import type { IntakePipeline, ReceivedSubmission } from '../intake/pipeline.js';
import type { IntakeForm } from '../services/intake-forms.js';
import { visitorKey, type SubmitRateLimiter } from '../intake/rate-limit.js';
import { allowedOriginsOf } from '../services/forms.js';
import { redirect, sendJson, sendPage, wantsHtml, wantsJson } from './answer.js';
import { bodyType, readSubmission } from './body.js';
import { ClientAbortedError } from './client-aborted.js';
import { clientIp } from '../net/client-address.js';
import { answerEcho } from './echo.js';
import { type AltchaRoute, altchaRoute, answerAltcha } from './altcha-routes.js';
import { DEFAULT_LANGUAGE, pageLanguage, pageText, supportedLanguage } from './languages/index.js';
import { OriginPolicy, postOriginOf, type RedirectControl } from './origin-policy.js';
import { feedbackOf, renderErrorPage, renderFormAddressPage, renderOnwardsPage, renderThankYouPage } from './pages.js';
import { isVouchedFor } from '../domain/workspace-trust.js';
import type { ThankYouLinks } from './thank-you-link.js';
import type { HealthService } from '../services/health.js';
import type { HealthDetailGate } from '../web/health-detail.js';
import { refusalHeaders } from '../web/limiter.js';

export interface SubmitSurface {
  server: http.Server;
  listen(options: { host: string; port: number }): Promise<void>;
  /** Stops taking connections, closes each after its request, and cuts what is still open at the deadline. */
  close(options?: DrainOptions): Promise<DrainOutcome>;
}

export interface SubmitDependencies {
  ctx: AppContext;
  log: Logger;
  limiter: SubmitRateLimiter;
  pipeline: IntakePipeline;
  links: ThankYouLinks;
  /** What `/healthz` answers, as on the management API. */
  health: HealthService;
  /** Who gets `/healthz`'s details, as on the management API. */
  healthGate: HealthDetailGate;
}

/** What each request's handling uses: the surface's dependencies, and its log of storage failures. */
interface HandlerDependencies extends SubmitDependencies {
  storageFailures: StorageFailureLog;
}

const FORM_ID = /^[a-z2-7]{20}$/;
/** The submit surface's routes, as the metrics label them. */
type SubmitRoute = '/:formId' | '/:formId/thanks' | '/healthz' | '/echo' | AltchaRoute | 'unmatched';
const FALSE_WORDS = new Set(['', '0', 'false', 'no', 'off']);

/**
 * The submit surface: where HTML forms and `fetch` clients post. It is the hottest path in the
 * system, so it is a plain `node:http` handler with a few fixed routes rather than a framework
 * (design.md measured the framework as the main per-request cost).
 */
export function createSubmitSurface(dependencies: SubmitDependencies): SubmitSurface {
  const deps: HandlerDependencies = { ...dependencies, storageFailures: new StorageFailureLog() };
  const { ctx, log } = deps;
  const server = http.createServer((request, response) => void handle(deps, request, response));
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  // NOTE: a slow client may not hold a connection open forever while sending its body.
  server.requestTimeout = 30_000;
  // A request Node refuses itself (headers over 16 KB, not HTTP) is answered with a problem too.
  server.on('clientError', answerClientError(ctx.errorsDocUrl));
  ignoreUnknownExpectations(server);
  const connections = new ConnectionDrain(server);
  return {
    server,
    listen: ({ host, port }) =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve();
        });
      }),
    async close(options) {
      const outcome = await connections.drain(options);
      log.debug({ submitUrl: ctx.config.submitUrl }, 'submit surface closed');
      return outcome;
    },
  };
}

async function handle(deps: HandlerDependencies, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const started = performance.now();
  const reqId = requestId(request);
  const url = request.url ?? '/';
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  response.setHeader('x-request-id', reqId);
  // Any site may post with `fetch`; nothing here depends on cookies, so no credentials are allowed.
  response.setHeader('access-control-allow-origin', '*');
  response.setHeader('access-control-expose-headers', 'Location, Retry-After, X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset');
  // 'close' comes after every answer, and when the visitor goes away before one
  deps.ctx.visitors.enter();
  response.once('close', () => deps.ctx.visitors.leave());
  // read now: once answered, a closed connection no longer knows its peer
  const client = clientIp(request, deps.ctx.config.trustProxy);
  const metrics = deps.ctx.metrics;
  // the route's pattern for the metrics (never the raw path), set as the request is told apart
  let route: SubmitRoute = 'unmatched';
  response.once('finish', () => {
    const ms = performance.now() - started;
    deps.log[requestLogLevel(path, response.statusCode)](
      { reqId, method: request.method, path, ip: client, status: response.statusCode, ms: Math.round(ms * 10) / 10 },
      'request',
    );
    metrics?.answered('submit', request.method ?? 'GET', route, response.statusCode, ms);
  });

  let controls: Record<string, string> | null = null;
  // known once the form is: nothing from the post is trusted before that
  let policy = null as OriginPolicy | null;
  let intakeForm = null as IntakeForm | null;
  // a post that reached the rate limit: its refusal counts as a refused submission
  let submitting = false;
  try {
    const method = request.method ?? 'GET';
    if (method === 'OPTIONS') return preflight(request, response);
    const [, first = '', second, ...rest] = path.split('/');
    const altcha = altchaRoute(first, second, rest);
    if (altcha) {
      route = altcha;
      requireMethod(response, method, ['GET', 'HEAD']);
      return await answerAltcha(deps.ctx, altcha, new URLSearchParams(queryAt === -1 ? '' : url.slice(queryAt + 1)), request, response);
    }
    if (rest.length > 0 || (second !== undefined && (second !== 'thanks' || !FORM_ID.test(first)))) throw notFound();
    const query = new URLSearchParams(queryAt === -1 ? '' : url.slice(queryAt + 1));

    if (second === 'thanks') {
      route = '/:formId/thanks';
      requireMethod(response, method, ['GET', 'HEAD']);
      return await thankYouPage(deps, first, query, request, response);
    }
    if (first === 'healthz') {
      route = '/healthz';
      requireMethod(response, method, ['GET', 'HEAD']);
      const health = await deps.health.answer(deps.healthGate.allows(client, request.headers));
      response.setHeader('cache-control', 'no-store');
      return sendJson(response, health.httpStatus, health.body);
    }
    if (first !== 'echo' && !FORM_ID.test(first)) throw notFound();
    route = first === 'echo' ? '/echo' : '/:formId';
    requireMethod(response, method, ['GET', 'HEAD', 'POST']);
    // A form without `method` is sent as GET with its fields in the query; HEAD never submits.
    const viaQuery = method !== 'POST';
    if (viaQuery && (method === 'HEAD' || !hasFields(query))) return await formAddress(deps, first, request, response);
    if (viaQuery) response.setHeader('cache-control', 'no-store');

    const visitor = visitorKey(client);
    submitting = first !== 'echo';
    const decision = await deps.limiter.consume(visitor);
    if (!decision.allowed) {
      for (const [name, value] of Object.entries(refusalHeaders(decision))) response.setHeader(name, value);
      throw new ProblemError('rate_limited', `Too many submissions from this address; retry in ${decision.retryAfterSeconds} seconds.`);
    }
    const admit = (form: IntakeForm) => {
      intakeForm = form;
      policy = new OriginPolicy(form, postOriginOf(request), viaQuery ? 'GET' : 'POST', vouchedFor(deps, form));
      policy.admit();
    };
    // A multipart post may carry files: its form's limits must be known before its body is read.
    const uploads = !viaQuery && first !== 'echo' && bodyType(request) === 'multipart/form-data' ? await deps.pipeline.openUploads(first, admit) : null;
    const parsed = viaQuery ? fieldsFromPairs(query) : await readSubmission(request, uploads, (seen) => (controls = seen));
    controls = parsed.controls;
    if (first === 'echo') return answerEcho(request, response, parsed, viaQuery ? null : query);
    const received = await deps.pipeline.receive(first, parsed, client, uploads ? undefined : admit, uploads, {
      userAgent: request.headers['user-agent'] ?? null,
      referrer: request.headers.referer ?? null,
    });
    metrics?.submitted(received.outcome);
    answerSuccess(deps, request, response, received, controls, policy!, visitor, intakeForm!);
  } catch (error) {
    answerFailure(deps, request, response, error, controls, policy, reqId, submitting);
  }
}

/** Whether the instance admin stands behind the form's workspace (always, unless sign-up is open). */
function vouchedFor(deps: SubmitDependencies, form: IntakeForm): boolean {
  return isVouchedFor(deps.ctx.config.signup === 'open', form);
}

/** A query carries fields when it has a named pair (`?message=hi`); `?` alone or `?=x` has none. */
function hasFields(query: URLSearchParams): boolean {
  for (const name of query.keys()) if (name !== '') return true;
  return false;
}

function answerSuccess(
  deps: SubmitDependencies,
  request: IncomingMessage,
  response: ServerResponse,
  received: ReceivedSubmission,
  controls: Record<string, string>,
  policy: OriginPolicy,
  visitor: string,
  form: IntakeForm,
): void {
  // NOTE: `_redirect` and `_error` mean nothing to a JSON client: a script cannot follow a redirect to a page.
  if (wantsJson(request)) {
    const { id, formId, createdAt, data, droppedFiles } = received;
    const answer = { id, formId, createdAt: new Date(createdAt).toISOString(), data };
    sendJson(response, 200, droppedFiles ? { ...answer, droppedFiles } : answer);
    return;
  }
  // a post's own `_redirect` wins for that submission; else the form's (its Settings)
  const target = usableRedirect(deps.log, policy, controls, '_redirect', { formId: received.formId }) ?? policy.ownerRedirect();
  if (target) {
    if (Object.hasOwn(controls, '_append') && !FALSE_WORDS.has(controls._append!.trim().toLowerCase())) {
      target.searchParams.set('submissionId', received.id);
    }
    if (policy.namesInstead(target)) {
      deps.log.info({ formId: received.formId, destination: clip(target.toString()) }, 'GET redirect named, not followed: the workspace is not vouched for');
      const language = pageLanguage(controls['_feedback.language'], request.headers['accept-language']);
      const dark = feedbackOf(controls, 'success', false).dark;
      sendPage(response, 200, renderOnwardsPage({ destination: target.toString(), dark, language, branding: !deps.ctx.plans.isUpgraded(form.plan) }));
      return;
    }
    redirect(response, target.toString());
    return;
  }
  const feedback = feedbackOf(controls, 'success', policy.vouched);
  const content = { ...feedback, backUrl: policy.backUrl(request.headers.referer), language: supportedLanguage(controls['_feedback.language']) };
  redirect(response, deps.links.build(deps.ctx.config.submitUrl, received.formId, content, visitor));
}

/** The target of `_redirect` or `_error` when the policy lets it be used; an unusable one is logged and ignored, the submission kept. */
function usableRedirect(log: Logger, policy: OriginPolicy, controls: Record<string, string>, name: RedirectControl, about: Record<string, string>): URL | null {
  const choice = policy.redirectOf(controls, name);
  if (choice === null) return null;
  if ('target' in choice) return choice.target;
  log.info({ ...about, control: name, value: clip(controls[name] ?? ''), reason: choice.ignored }, 'control field ignored');
  return null;
}

/**
 * By the request: JSON asked for → a problem; `_error` given and usable → redirect there; a browser
 * → a page; else a problem. Until the form is known (`policy`), nothing from the post is used.
 */
function answerFailure(
  deps: HandlerDependencies,
  request: IncomingMessage,
  response: ServerResponse,
  error: unknown,
  controls: Record<string, string> | null,
  policy: OriginPolicy | null,
  reqId: string,
  submitting: boolean,
): void {
  if (error instanceof ClientAbortedError) {
    // NOTE: no one to answer, and nothing wrong here: info, counted apart from the refusals
    deps.log.info({ reqId, reason: 'client_aborted' }, 'the visitor went away before their post had arrived; nothing was stored');
    if (submitting) deps.ctx.metrics?.submitted('aborted');
    return void response.destroy();
  }
  const known = !(error instanceof ProblemError) && deps.ctx.isStorageUnavailable(error) ? storageUnavailable(readOnly(request)) : error;
  const problem = known instanceof ProblemError ? known : new ProblemError('internal_error', 'The server failed to take the submission; nothing was stored.');
  if (submitting) deps.ctx.metrics?.refused(problem.code);
  if (problem.code === 'storage_unavailable' && !(error instanceof ProblemError)) deps.storageFailures.note(deps.log, error, { reqId });
  else if (!(error instanceof ProblemError)) deps.log.error({ err: error, reqId }, 'submission failed');
  if (response.headersSent) return void response.destroy();
  if (problem.code === 'payload_too_large') response.setHeader('connection', 'close');
  if (problem.status === 503) response.setHeader('retry-after', String(RETRY_AFTER_UNAVAILABLE_SECONDS));
  const extra = problem.extra;

  const errorTarget = !wantsJson(request) && policy && controls ? usableRedirect(deps.log, policy, controls, '_error', { reqId }) : null;
  if (errorTarget && policy?.namesInstead(errorTarget)) {
    deps.log.info({ reqId, control: '_error', value: clip(errorTarget.toString()), reason: 'a GET to a workspace not vouched for' }, 'control field ignored');
  } else if (errorTarget) {
    redirect(response, errorTarget.toString());
    return;
  }
  if (!wantsJson(request) && wantsHtml(request)) {
    const vouched = policy?.vouched ?? false;
    const feedback = controls ? feedbackOf(controls, 'error', vouched) : { dark: false };
    const language = pageLanguage(controls?.['_feedback.language'], request.headers['accept-language']);
    // NOTE: `errors` may name the post's own fields: words of the post, shown only where the owner vouches for it
    const errors = vouched && Array.isArray(extra.errors) ? (extra.errors as string[]) : undefined;
    const page = renderErrorPage(problem.status, {
      title: feedback.title,
      // a problem's detail is English: another language shows the page's own wording for the problem
      message: feedback.message ?? (language === DEFAULT_LANGUAGE ? problem.detail : undefined),
      dark: feedback.dark,
      branding: false,
      // NOTE: none before the form is known: no owner speaks for a way back from a form that is not there
      backUrl: policy?.backUrl(request.headers.referer) ?? null,
      errors,
      code: problem.code,
      language,
    });
    sendPage(response, problem.status, page);
    return;
  }
  sendJson(response, problem.status, problemBody(deps.ctx.errorsDocUrl(), problem.code, problem.detail, extra), 'application/problem+json');
}

async function thankYouPage(
  deps: SubmitDependencies,
  formId: string,
  query: URLSearchParams,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const form = await deps.ctx.forms.getIntakeForm(formId);
  if (!form) throw new ProblemError('not_found', `There is no form ${formId}.`);
  const visitor = visitorKey(clientIp(request, deps.ctx.config.trustProxy));
  // NOTE: anyone can open this page without posting: a workspace nobody vouched for puts no words of its own here
  const vouched = vouchedFor(deps, form);
  const content = deps.links.read(formId, query, visitor, allowedOriginsOf(form), vouched);
  const language = pageLanguage(content.language, request.headers['accept-language']);
  // a vouched post's `_feedback.success.*` wins; else the form's own wording (its Settings); else the page's language's
  const title = content.title ?? (vouched ? form.thanksTitle : null) ?? undefined;
  const message = content.message ?? (vouched ? form.thanksMessage : null) ?? undefined;
  sendPage(response, 200, renderThankYouPage({ ...content, title, message, language, branding: !deps.ctx.plans.isUpgraded(form.plan) }));
}

/** A form's address opened without fields (a link, a HEAD): says what the address is; stores nothing. */
async function formAddress(deps: SubmitDependencies, formId: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
  response.setHeader('cache-control', 'no-store');
  if (formId === 'echo') return sendJson(response, 200, {});
  const form = await deps.ctx.forms.getIntakeForm(formId);
  if (!form) throw notFound();
  const language = pageLanguage(null, request.headers['accept-language']);
  if (wantsJson(request) || !wantsHtml(request)) {
    return sendJson(response, 200, {
      formId,
      detail: `${pageText(DEFAULT_LANGUAGE).formAddress.message} Send its fields with POST (or GET with the fields in the query).`,
    });
  }
  sendPage(response, 200, renderFormAddressPage({ language, branding: !deps.ctx.plans.isUpgraded(form.plan) }));
}

function preflight(request: IncomingMessage, response: ServerResponse): void {
  const requested = request.headers['access-control-request-headers'];
  response.writeHead(204, {
    'access-control-allow-methods': 'GET, HEAD, POST, OPTIONS',
    'access-control-allow-headers': typeof requested === 'string' && requested.length <= 1024 ? requested : 'Content-Type, Accept',
    'access-control-max-age': '86400',
    'content-length': 0,
  });
  response.end();
}

function requireMethod(response: ServerResponse, method: string, allowed: string[]): void {
  if (allowed.includes(method)) return;
  response.setHeader('allow', allowed.join(', '));
  throw new ProblemError('method_not_allowed', `${method} is not allowed here; use ${allowed.join(' or ')}.`);
}

// NOTE: the detail names no part of the path: a browser shows it on the error page, and anyone can write a link.
function notFound(): ProblemError {
  return new ProblemError('not_found', "There is no form at this address; check the form's action URL.");
}
