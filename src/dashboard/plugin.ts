import cookie from '@fastify/cookie';
import compress from '@fastify/compress';
import csrf from '@fastify/csrf-protection';
import formBody from '@fastify/formbody';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { AppContext } from '../context.js';
import { StorageFailureLog } from '../domain/storage-failure-log.js';
import { ProblemError, readOnly, RETRY_AFTER_UNAVAILABLE_SECONDS, storageUnavailable } from '../errors.js';
import { CUT_OFF_MESSAGE, requestCutOff } from '../web/request-cut-off.js';
import { COMPRESSION_THRESHOLD, TEXT_ENCODINGS } from '../web/text-compression.js';
import { installAssets } from './assets.js';
import { csrfChecker } from './csrf-keys.js';
import { DeviceCookies } from './device-cookie.js';
import { LoginLimits } from './login-limits.js';
import type { ExportLimits } from '../web/export-limits.js';
import type { SearchLimits } from '../web/search-limits.js';
import { CROSS_SITE_DETAIL, PageError } from './page-error.js';
import { sendPage } from './render.js';
import { registerAccountRoutes } from './routes/account.js';
import { registerAdminRoutes } from './routes/admin.js';
import { registerAuditRoutes } from './routes/audit.js';
import { registerDeliveryRoutes } from './routes/deliveries.js';
import { registerFormSetupRoutes } from './routes/form-setup.js';
import { registerExportRoutes } from './routes/export.js';
import { registerFormDeleteRoutes } from './routes/form-delete.js';
import { registerFormSettingsRoutes } from './routes/form-settings.js';
import { registerFormChannelRoutes } from './routes/form-channels.js';
import { registerFormDestinationRoutes } from './routes/form-destinations.js';
import { registerWebhookBodyRoutes } from './routes/webhook-body.js';
import { registerLoginRoutes } from './routes/login.js';
import { registerTwoFactorRoutes } from './routes/two-factor.js';
import { registerPasskeyRoutes } from './routes/passkeys.js';
import { registerPasskeySignInRoutes } from './routes/passkey-sign-in.js';
import { registerOidcRoutes } from './routes/oidc.js';
import { registerAdminSignInRoutes } from './routes/admin-sign-in.js';
import { registerSessionRoutes } from './routes/sessions.js';
import { SignInFlow } from './sign-in.js';
import { registerPasswordResetRoutes } from './routes/password-reset.js';
import { registerRecipientRoutes } from './routes/recipients.js';
import { registerNotSpamLinkRoutes } from './routes/not-spam-links.js';
import { registerInboxRoutes } from './routes/inbox.js';
import { registerInvitationRoutes } from './routes/invitations.js';
import { registerMemberRemovalRoutes } from './routes/member-removal.js';
import { registerMembersRoutes } from './routes/members.js';
import { registerNewFormRoutes } from './routes/new-form.js';
import { registerSignupRoutes } from './routes/signup.js';
import { registerSetupRoutes } from './routes/setup.js';
import { registerSpamRoutes } from './routes/spam.js';
import { registerSubmissionRoutes } from './routes/submission.js';
import { registerLabelRoutes } from './routes/labels.js';
import { registerAutomationRoutes } from './routes/automations.js';
import { registerSavedViewRoutes } from './routes/saved-views.js';
import { registerTemplateRoutes } from './routes/templates.js';
import { registerTokenRoutes } from './routes/tokens.js';
import { registerWorkspaceHomeRoutes } from './routes/workspace-home.js';
import { registerWorkspaceSettingsRoutes } from './routes/workspace-settings.js';
import { registerWorkspaceDeleteRoutes } from './routes/workspace-delete.js';
import { registerErasureRoutes } from './routes/erasure.js';
import { registerWorkspacesRoutes } from './routes/workspaces.js';
import { installOriginCheck, installSecurityHeaders } from './security.js';
import { SignupEmailLimits } from './signup-limits.js';
import { csrfUserInfo, installSessions, sessionCookie } from './session.js';
import type { SubmitTarget } from './submit-post.js';
import { ErrorPage } from './views/error-page.js';
import { problemRefusalHeaders } from '../web/limiter.js';

export interface DashboardOptions {
  ctx: AppContext;
  /** Shared counters (login attempts) when several instances run; null: in this process. */
  redis: Redis | null;
  /** The submit surface: "Send a test submission" posts through it. */
  submit: SubmitTarget;
  /** Searches per session and per client address (the API's, shared). */
  searchLimits: SearchLimits;
  /** Exports and erasures per account (the API's, shared). */
  exportLimits: ExportLimits;
}

// What the dashboard compresses: HTML, CSS, JavaScript, SVG (sendText sends nothing else).
const COMPRESSIBLE_TYPES = /^(?:text\/html|text\/css|text\/javascript|application\/javascript|image\/svg\+xml)(?:;|$)/;

// A page's form is a few fields; nothing it sends needs more.
const BODY_LIMIT = 64 * 1024;

/**
 * The dashboard: server-rendered pages at `/` on the management API's port, calling the same
 * services as the API. Registered in a context of its own, so its cookies, form bodies, security
 * headers and error pages never touch the API under /public/v1.
 */
export async function dashboard(app: FastifyInstance, { ctx, redis, submit, searchLimits, exportLimits }: DashboardOptions): Promise<void> {
  const https = ctx.config.publicUrl.startsWith('https:');
  const session = sessionCookie(ctx.config);
  // keys of their own for cookie signatures, derived from the installation's secrets: new cookies
  // are signed with the current one, those signed before a rotation still read
  const cookieKeys = ctx.keyring.derive('formgate-dashboard-cookies');
  await app.register(cookie, { secret: cookieKeys.all });
  await app.register(formBody, { bodyLimit: BODY_LIMIT });
  // Pages, the stylesheet and scripts, in br or gzip, by sendText (render.ts) only: never files or
  // exports, and request bodies are not decompressed. Safe from BREACH (docs/decisions.md): a page's
  // CSRF token differs in every answer, and the pages that show a secret (answers to a CSRF-checked
  // POST) set `compress: false` on their route (routes/tokens.ts, form-settings.ts).
  await app.register(compress, {
    global: false,
    globalDecompression: false,
    encodings: [...TEXT_ENCODINGS],
    threshold: COMPRESSION_THRESHOLD,
    customTypes: COMPRESSIBLE_TYPES,
  });
  await installSecurityHeaders(app, https);
  installOriginCheck(app, ctx.config.publicUrl);
  const csrfCookie = https ? '__Host-fg_csrf' : 'fg_csrf';
  await app.register(csrf, {
    cookieKey: csrfCookie,
    cookieOpts: { path: '/', sameSite: 'lax', httpOnly: true, secure: https, signed: true },
    csrfOpts: { hmacKey: cookieKeys.current },
    // A token is good for the session it was made in only (or for no session, on the login pages).
    getUserInfo: csrfUserInfo,
  });
  installSessions(app, ctx.sessions, session, () => ctx.instance.requireTwoFactor());
  // every change a page makes carries the token (the Origin check has run before)
  const checkCsrf = csrfChecker(cookieKeys, csrfCookie, csrfUserInfo);
  app.addHook('preHandler', (request, reply, done) => {
    if (request.method === 'GET' || request.method === 'HEAD') return done();
    checkCsrf(request, reply, done);
  });
  const storageFailures = new StorageFailureLog();
  app.setErrorHandler((error: FastifyError, request, reply) => errorPage(error, request, reply, storageFailures, ctx.isStorageUnavailable));
  installAssets(app);

  const limits = new LoginLimits(ctx.config, redis, new DeviceCookies(https));
  const signupLimits = new SignupEmailLimits(limits, redis);
  registerSetupRoutes(app, ctx, session, signupLimits);
  registerSignupRoutes(app, ctx, session, signupLimits);
  const signIn = new SignInFlow(ctx, session);
  registerLoginRoutes(app, ctx, signIn, limits);
  registerTwoFactorRoutes(app, ctx, signIn, limits);
  registerPasskeySignInRoutes(app, ctx, signIn, limits);
  registerPasskeyRoutes(app, ctx, session, limits);
  registerOidcRoutes(app, ctx, signIn, limits);
  registerAdminSignInRoutes(app, ctx);
  registerSessionRoutes(app, ctx);
  registerPasswordResetRoutes(app, ctx, session, limits);
  registerAccountRoutes(app, ctx, session, limits);
  registerWorkspaceHomeRoutes(app, ctx);
  registerNewFormRoutes(app, ctx);
  registerFormSetupRoutes(app, ctx, submit);
  registerTokenRoutes(app, ctx, limits);
  registerWorkspacesRoutes(app, ctx);
  registerWorkspaceSettingsRoutes(app, ctx);
  registerWorkspaceDeleteRoutes(app, ctx);
  registerErasureRoutes(app, ctx, exportLimits);
  registerAdminRoutes(app, ctx, redis);
  registerAuditRoutes(app, ctx);
  registerMembersRoutes(app, ctx);
  registerMemberRemovalRoutes(app, ctx);
  registerInvitationRoutes(app, ctx, session);
  registerInboxRoutes(app, ctx, searchLimits);
  registerSubmissionRoutes(app, ctx);
  registerLabelRoutes(app, ctx);
  registerAutomationRoutes(app, ctx, limits);
  registerSavedViewRoutes(app, ctx);
  registerSpamRoutes(app, ctx, searchLimits);
  registerDeliveryRoutes(app, ctx);
  registerTemplateRoutes(app, ctx, redis);
  registerExportRoutes(app, ctx, searchLimits, exportLimits);
  registerFormSettingsRoutes(app, ctx);
  registerFormChannelRoutes(app, ctx, redis);
  registerFormDestinationRoutes(app, ctx, redis);
  registerWebhookBodyRoutes(app, ctx);
  registerFormDeleteRoutes(app, ctx);
  registerRecipientRoutes(app, ctx);
  registerNotSpamLinkRoutes(app, ctx);
}

/**
 * Any error on a page becomes a page: its status, a title and what to do; 5xx details go to the log
 * only. A database that cannot write (its disk full, the connection lost) is a 503 asking to try again.
 */
function errorPage(
  error: FastifyError | PageError | ProblemError,
  request: FastifyRequest,
  reply: FastifyReply,
  storageFailures: StorageFailureLog,
  isStorageUnavailable: (error: unknown) => boolean,
): FastifyReply {
  if (error instanceof PageError) return sendPage(reply, ErrorPage({ title: error.title, detail: error.detail }), error.status);
  if (!(error instanceof ProblemError) && requestCutOff(request.raw)) {
    request.log.info({ reason: 'client_aborted' }, CUT_OFF_MESSAGE);
    return reply.code(400).send();
  }
  if ('code' in error && (error.code === 'FST_CSRF_INVALID_TOKEN' || error.code === 'FST_CSRF_MISSING_SECRET')) {
    return sendPage(reply, ErrorPage({ title: 'Change refused', detail: CROSS_SITE_DETAIL }), 403);
  }
  if (error instanceof ProblemError && error.code === 'not_found') {
    return sendPage(reply, ErrorPage({ title: 'Not found', detail: 'There is nothing here, or it is not yours to see.' }), 404);
  }
  // refused before the dashboard's own hooks ran: the page that links to the right address
  if (error instanceof ProblemError && error.code === 'misdirected_request') return refusedRequestPage(reply, error);
  if (error instanceof ProblemError && error.status < 500) {
    if (error.code === 'rate_limited') {
      reply.headers(problemRefusalHeaders(error.extra));
      return sendPage(reply, ErrorPage({ title: 'Too many requests', detail: error.detail }), error.status);
    }
    return sendPage(reply, ErrorPage({ title: 'Something is not right', detail: error.detail }), error.status);
  }
  if (isStorageUnavailable(error)) {
    storageFailures.note(request.log, error);
    reply.header('retry-after', String(RETRY_AFTER_UNAVAILABLE_SECONDS));
    return sendPage(reply, ErrorPage({ title: 'Try again in a moment', detail: storageUnavailable(readOnly(request)).detail }), 503);
  }
  const status = (error as FastifyError).statusCode;
  if (status && status >= 400 && status < 500) {
    return sendPage(reply, ErrorPage({ title: 'Something is not right', detail: 'The request could not be read. Go back and try again.' }), status);
  }
  request.log.error({ err: error }, 'dashboard page failed');
  return sendPage(reply, ErrorPage({ title: 'Something went wrong', detail: 'The server failed to show this page. Try again in a moment.' }), 500);
}

/** The page for an address that is neither a page nor part of the API. */
export function notFoundPage(reply: FastifyReply): FastifyReply {
  staticPageHeaders(reply);
  return sendPage(reply, ErrorPage({ title: 'Page not found', detail: 'There is no page at this address.' }), 404);
}

/** The page for a browser's request refused before any route ran: a malformed or over-long address, or another site's host name. */
export function refusedRequestPage(reply: FastifyReply, problem: ProblemError): FastifyReply {
  staticPageHeaders(reply);
  // under another host name, "/" would lead back to this page: the link goes to the public URL
  if (problem.code === 'misdirected_request') {
    return sendPage(reply, ErrorPage({ title: 'Wrong address', detail: problem.detail, home: `${String(problem.extra.publicUrl)}/` }), problem.status);
  }
  return sendPage(reply, ErrorPage({ title: 'Something is not right', detail: problem.detail }), problem.status);
}

// outside the dashboard's context, so without its helmet: the same protections, stricter still (a static page)
function staticPageHeaders(reply: FastifyReply): void {
  reply.headers({
    'content-security-policy':
      "default-src 'none'; script-src 'none'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
    'x-frame-options': 'DENY',
  });
}
