import rateLimit from '@fastify/rate-limit';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { API_PREFIX, type RateLimit } from './config/config.js';
import type { AppContext } from './context.js';
import { dashboard, notFoundPage, refusedRequestPage } from './dashboard/plugin.js';
import { ProblemError } from './errors.js';
import { installAuth } from './http/auth.js';
import type { NotFoundPage } from './http/browser-pages.js';
import { installNotFound } from './http/not-found.js';
import { addSharedSchemas, registerOpenApi } from './http/openapi.js';
import { answerFrameworkError, installClosingAnswer, installProblemHandler } from './http/problem-handler.js';
import { answerClientError, ignoreUnknownExpectations } from './web/client-error.js';
import { installHostCheck } from './http/host-check.js';
import { installAuditScene } from './web/audit-scene.js';

import { ConnectionDrain, type DrainOptions, type DrainOutcome, KEEP_ALIVE_TIMEOUT_MS } from './web/connection-drain.js';
import { installJsonParser } from './http/json-body.js';
import { redisStoreWithFallback } from './http/rate-limit-store.js';
import { ExportLimits } from './web/export-limits.js';
import { SearchLimits } from './web/search-limits.js';
import { installRequestLog } from './http/request-log.js';
import { requestId } from './web/request-id.js';
import { serializersOnFirstUse } from './http/serialization.js';
import { registerErrorDocsRoute } from './http/routes/error-docs.js';
import { registerHealthRoute } from './http/routes/health.js';
import { registerMetrics } from './http/routes/metrics.js';
import { registerFileRoutes } from './http/routes/v1/files.js';
import { registerHookRoutes } from './http/routes/v1/hooks.js';
import { registerAuditEventRoutes } from './http/routes/v1/audit-events.js';
import { registerFormRoutes } from './http/routes/v1/forms.js';
import { registerMeRoutes } from './http/routes/v1/me.js';
import { registerSubmissionRoutes } from './http/routes/v1/submissions.js';
import { registerSpamFolderRoutes } from './http/routes/v1/spam-folder.js';
import { registerTriageRoutes } from './http/routes/v1/triage.js';
import { registerErasureRoutes } from './http/routes/v1/erasure.js';
import { registerTemplateRoutes } from './http/routes/v1/templates.js';
import { registerWorkspaceRoutes } from './http/routes/v1/workspaces.js';
import type { FastifyTypeBox } from './http/types.js';
import { UploadIntake } from './intake/uploads.js';
import { IntakePipeline } from './intake/pipeline.js';
import { Backlog } from './jobs/backlog.js';
import { FilesHealth } from './services/files-health.js';
import { HealthService } from './services/health.js';
import { HealthDetailGate } from './web/health-detail.js';
import { type ConnectionLimitOptions, limitConnections } from './web/connection-limits.js';
import { SubmitRateLimiter, visitorKey } from './intake/rate-limit.js';
import { proxyTrust, trustsProxies } from './net/client-address.js';
import { connectRedis, whenRedisReady } from './net/redis-client.js';
import { SubmissionWriter } from './intake/writer.js';
import { quotaNoticeJobs } from './services/mail-outbox.js';
import { SpamScorer } from './spam/score.js';
import { createSubmitSurface, type SubmitSurface } from './submit/server.js';
import { ThankYouLinks } from './submit/thank-you-link.js';
import { installValidators } from './http/validation.js';
import { MemoryRepeatLog, RedisRepeatLog } from './spam/repeats.js';
import { OutsideJudges } from './spam/judges/outside-judges.js';
import { MemorySameMessageLog, RedisSameMessageLog } from './spam/judges/same-message.js';
import { SpamLessons } from './services/spam-lessons.js';

export interface Surfaces {
  api: FastifyInstance;
  submit: SubmitSurface;
  /**
   * The drain window begins (src/cli/serve.ts): `/healthz` answers 503 `stopping` on both ports and
   * every answer closes its connection, while both surfaces still listen and serve.
   */
  beginStopping(): void;
  /** Closes both surfaces' connections after their requests (see ConnectionDrain), cutting what is open at the deadline. */
  close(options?: DrainOptions): Promise<DrainOutcome>;
}

function baseServer(ctx: AppContext, logger: FastifyBaseLogger, bodyLimit: number, notFound?: NotFoundPage): FastifyInstance {
  const app = Fastify({
    loggerInstance: logger,
    // our own one line per request (request-log.ts) replaces Fastify's two
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: requestId,
    // the same function the submit surface uses (net/client-address.ts): both agree on every client's address
    trustProxy: trustsProxies(ctx.config.trustProxy) ? proxyTrust(ctx.config.trustProxy) : false,
    bodyLimit,
    // NOTE: Fastify's default (0) would let a slow client hold a connection open forever while sending its body; the submit surface's limit.
    requestTimeout: 30_000,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    // installClosingAnswer answers that 503 in the catalogue's words
    return503OnClosing: false,
    schemaController: serializersOnFirstUse(),
    // Errors Fastify and Node answer before any route runs are problem documents too.
    frameworkErrors: answerFrameworkError(ctx.errorsDocUrl, ctx.isStorageUnavailable, notFound),
    clientErrorHandler: answerClientError(ctx.errorsDocUrl),
  });
  ignoreUnknownExpectations(app.server);
  installJsonParser(app);
  installValidators(app);
  installProblemHandler(app, ctx.errorsDocUrl, ctx.isStorageUnavailable, notFound);
  installClosingAnswer(app, ctx.errorsDocUrl);
  installRequestLog(app);
  installNotFound(app, ctx.errorsDocUrl, notFound);
  return app;
}

/** Per-IP limits; counters live in Redis when configured so every instance shares them. */
async function registerRateLimit(app: FastifyInstance, surface: 'api' | 'submit', limit: RateLimit, redis: Redis | null): Promise<void> {
  if (!limit) return;
  await app.register(rateLimit, {
    max: limit.max,
    timeWindow: limit.windowMs,
    // an IPv6 client counts by its /64, as on the submit surface, so rotating addresses within it gains nothing
    keyGenerator: (request) => visitorKey(request.ip),
    ...(redis ? { store: redisStoreWithFallback(redis, `rl-${surface}:`) } : {}),
    errorResponseBuilder: (_request, context) =>
      new ProblemError('rate_limited', `Too many requests from this address; retry in ${Math.ceil(context.ttl / 1000)} seconds.`),
  });
}

/** The submit surface and the intake pipeline behind it. */
function buildSubmitSurface(
  ctx: AppContext,
  logger: FastifyBaseLogger,
  redis: Redis | null,
  health: HealthService,
  healthGate: HealthDetailGate,
): SubmitSurface {
  const log = logger as Logger;
  const writer = new SubmissionWriter(
    ctx.database,
    async (trx, workspaceId) => {
      log.warn({ workspaceId }, 'workspace reached its submission allowance; new submissions are held until it grows');
      await quotaNoticeJobs(trx, workspaceId, ctx.config);
    },
    ctx.plans,
    ctx.config.spamRetentionMs,
  );
  const repeats = redis ? new RedisRepeatLog(redis, new MemoryRepeatLog()) : new MemoryRepeatLog();
  const judges = new OutsideJudges({
    spamd: ctx.config.spamd,
    config: ctx.config.spamJudges,
    publicUrl: ctx.config.publicUrl,
    log,
    sameMessages: redis ? new RedisSameMessageLog(redis, new MemorySameMessageLog()) : new MemorySameMessageLog(),
    counter: ctx.metrics,
  });
  const uploads = new UploadIntake(ctx.database, ctx.files, ctx.fileLinks, log, ctx.plans);
  const pipeline = new IntakePipeline(
    ctx.forms,
    writer,
    new SpamScorer({ repeats, lessons: new SpamLessons(ctx.database) }),
    { urls: ctx.config.captchaVerifyUrls, altcha: ctx.altcha },
    log,
    uploads,
    judges,
  );
  return createSubmitSurface({
    ctx,
    log,
    limiter: new SubmitRateLimiter(ctx.config.rateLimitSubmit, redis),
    pipeline,
    links: new ThankYouLinks(ctx.keyring),
    health,
    healthGate,
  });
}

/** PostgreSQL: the change feed's losses and returns, logged (db/change-feed.ts); listening from now on, before the first request. */
function watchChangeFeed(ctx: AppContext, log: Logger): void {
  ctx.database.watchChangeFeed((state) => {
    if (state === 'listening') log.info('listening for changes to forms and tokens again: kept in memory again');
    else
      log.warn(
        'lost the connection listening for changes to forms and tokens (LISTEN formgate_changes): kept rows off, every request reads its form or token, until it is back',
      );
  });
  ctx.database.changeFeedState();
}

/** The caps of one surface's connections; a trusted proxy's own address is never capped as one visitor. */
function connectionLimitOptions(ctx: AppContext, logger: FastifyBaseLogger, surface: 'api' | 'submit'): ConnectionLimitOptions {
  const setting = ctx.config.trustProxy;
  const trust = trustsProxies(setting) ? proxyTrust(setting) : null;
  return {
    surface,
    limits: ctx.config.connections,
    log: logger as Logger,
    metrics: ctx.metrics,
    // hop 0: the connection's peer; with a number of hops every peer is trusted, so no address is capped
    isTrustedProxy: trust ? (address) => trust(address, 0) : () => false,
  };
}

/** Builds the management API (with its docs and OpenAPI) and the submit surface; nothing listens yet. */
export async function buildSurfaces(ctx: AppContext, logger: FastifyBaseLogger): Promise<Surfaces> {
  const redis = ctx.config.redisUrl ? connectRedis(ctx.config.redisUrl, ctx.config.redisPrefix, logger as Logger) : null;
  if (redis) await whenRedisReady(redis, ctx.config.startupWaitMs, logger as Logger, ctx.config.redisUrl ?? '');

  // Template code may be 262,144 characters of up to 4 UTF-8 bytes each, JSON-escaped.
  const api = baseServer(ctx, logger, 2 * 1024 * 1024, { outside: API_PREFIX, page: notFoundPage, problemPage: refusedRequestPage });
  // first of all hooks: a request for another host name reaches no rate limit, session or route
  installHostCheck(api, () => ctx.config.publicUrl);
  // who and from where, for the audit log: the dashboard's session, or the API's token (read when an event is recorded)
  await installAuditScene(api, API_PREFIX, (request) => {
    if (request.account) return { userId: request.account.user.id, email: request.account.user.email };
    return request.principal ? { userId: request.principal.userId, email: null } : null;
  });

  const apiConnections = new ConnectionDrain(api.server);
  limitConnections(api.server, connectionLimitOptions(ctx, logger, 'api'));
  addSharedSchemas(api);
  await registerOpenApi(api, ctx.config);
  await registerRateLimit(api, 'api', ctx.config.rateLimitApi, redis);
  // the API takes JSON only; without this, text/plain would reach validation as a string
  api.removeContentTypeParser('text/plain');
  installAuth(api, ctx.tokens);
  const searchLimits = new SearchLimits(ctx.config, redis);
  const exportLimits = new ExportLimits(ctx.config, redis);
  watchChangeFeed(ctx, logger as Logger);
  const filesHealth = new FilesHealth(ctx.files);
  const health = new HealthService(ctx.database, ctx.mailHealth, new Backlog(ctx.database), redis, ctx.deliverySwitch, filesHealth);
  const healthGate = new HealthDetailGate(ctx.config.metrics.enabled ? ctx.config.metrics.token : null, trustsProxies(ctx.config.trustProxy));
  registerHealthRoute(api, health, healthGate);
  if (ctx.metrics && ctx.config.metrics.enabled) {
    ctx.metrics.watchBacklog(() => health.readBacklog());
    ctx.metrics.watchFileStore(ctx.files.kind, () => filesHealth.reachable());
    ctx.metrics.watchDeliveriesPaused(() => ctx.deliverySwitch.paused());
    ctx.metrics.watchStopping(() => health.isStopping());
    if (ctx.database.dialect === 'postgres') ctx.metrics.watchChangeFeed(() => ctx.database.changeFeedState() === 'listening');
    registerMetrics(api, ctx.metrics, ctx.config.metrics.token);
  }
  registerErrorDocsRoute(api);
  await api.register(
    async (v1) => {
      const typed = v1.withTypeProvider() as unknown as FastifyTypeBox;
      registerMeRoutes(typed);
      registerWorkspaceRoutes(typed, ctx);
      registerFormRoutes(typed, ctx);
      registerSubmissionRoutes(typed, ctx, searchLimits, exportLimits);
      registerSpamFolderRoutes(typed, ctx);
      registerTriageRoutes(typed, ctx);
      registerErasureRoutes(typed, ctx, exportLimits);
      registerTemplateRoutes(typed, ctx);
      registerFileRoutes(typed, ctx);
      registerHookRoutes(typed, ctx);
      registerAuditEventRoutes(typed, ctx);
    },
    { prefix: API_PREFIX },
  );

  // before the dashboard, whose "Send a test submission" posts through it
  const submit = buildSubmitSurface(ctx, logger, redis, health, healthGate);
  limitConnections(submit.server, connectionLimitOptions(ctx, logger, 'submit'));

  await api.register(dashboard, { ctx, redis, submit, searchLimits, exportLimits });

  return {
    api,
    submit,
    beginStopping() {
      // NOTE: connections stay kept alive through the drain window; answers close theirs only once the
      // listeners close (the drain). Closing each from the signal on made a proxy that keeps sending
      // (nginx) open a new connection for every request until the listener closed, and a connection
      // the kernel completed just before that close is reset with its POST in it (issue 40's runs: a
      // 502 in one rolling restart of three). Kept alive, the proxy's pooled connections carry the
      // requests past the close; each is then answered and closed, and a new connect is refused, which
      // nginx tries on the next instance.
      health.markStopping();
    },
    async close(options) {
      const [fromApi, fromSubmit] = await Promise.all([apiConnections.drain(options), submit.close(options)]);
      // Fastify's own close (its onClose hooks) once no connection is left, so that a request on a
      // connection still open is answered (with Connection: close), not refused as shutting_down
      await api.close();
      redis?.disconnect();
      return { cut: fromApi.cut + fromSubmit.cut };
    },
  };
}
