import type { AddressInfo } from 'node:net';
import path from 'node:path';
import v8 from 'node:v8';
import type { Logger } from 'pino';
import { buildSurfaces, type Surfaces } from '../app.js';
import { API_PREFIX, type Config, redisOnSqliteWarning } from '../config/config.js';
import { openContext, type AppContext } from '../context.js';
import { DRAIN_DEADLINE_MS, IDLE_GRACE_MS } from '../web/connection-drain.js';
import { startDelivery } from '../jobs/delivery.js';
import { proxyTrustWarning } from '../net/client-address.js';
import { startSearchIndexing } from '../jobs/search-indexer.js';
import { startDeliveryPurge } from '../jobs/delivery-purge.js';
import { startAuditPurge } from '../jobs/audit-purge.js';
import { startSpamPurge } from '../jobs/spam-purge.js';
import { startSpamDigests } from '../jobs/spam-digest.js';
import { startAssignedDigests } from '../jobs/assigned-digest.js';
import { startAltchaPurge } from '../jobs/altcha-purge.js';
import { startSubmissionRetention } from '../jobs/submission-retention.js';
import { startFileSweep } from '../jobs/file-sweep.js';
import { mailWarning, outboxDir } from '../mail/transport.js';
import { openToOthers } from '../private-files.js';
import { unknownVariableWarnings } from '../config/unknown-variables.js';
import { createLogger } from './logger.js';
import { guardProcess } from './process-guard.js';
import { VERSION } from '../version.js';
import { openSignupWarning } from '../services/instance-settings.js';
import { addressChecksOffWarning } from '../net/outbound-guard.js';

// A container gets 10 s after SIGTERM by default (Docker, compose), then SIGKILL: the whole
// shutdown fits in 9. The drain window (FORMGATE_DRAIN_WINDOW, 3 s by default) comes first; then
// requests under way get DRAIN_DEADLINE_MS (5 s); deliveries get 6 s from the signal, at the same
// time; closing the search index and the database takes the rest. A window longer than 3 s makes
// the bound the window plus AFTER_WINDOW_MS, and the stop timeout must grow with it (docs/configuration.md).
const DELIVERY_DEADLINE_MS = 6_000;
const STOP_DEADLINE_MS = 9_000;
const AFTER_WINDOW_MS = 6_000;
/**
 * A signal this soon after the first is the same stop delivered twice (Ctrl-C and systemd signal the
 * whole process group, and npm passes its own on, within milliseconds), not an operator's second one.
 */
const REPEAT_MS = 1_000;

function urlOf(address: AddressInfo): string {
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

/**
 * Builds the surfaces and listens on the configured host and ports. With port 0 (tests) the real
 * ports are known only once listening, so addresses not set explicitly are derived then.
 */
export async function listen(ctx: AppContext, logger: Logger, explicit: { publicUrl: boolean; submitUrl: boolean }): Promise<Surfaces> {
  const { config } = ctx;
  const surfaces = await buildSurfaces(ctx, logger);
  try {
    await surfaces.api.listen({ host: config.host, port: config.port });
    await surfaces.submit.listen({ host: config.host, port: config.submitPort });
  } catch (error) {
    await surfaces.close();
    throw error;
  }
  if (!explicit.publicUrl) {
    config.publicUrl = urlOf(surfaces.api.server.address() as AddressInfo);
    config.baseUrl = config.publicUrl + API_PREFIX;
  }
  if (!explicit.submitUrl) config.submitUrl = urlOf(surfaces.submit.server.address() as AddressInfo);
  return surfaces;
}

/** Files made by an earlier version (0755, 0644) stay readable by every local user until an operator closes them. */
function warnAboutOpenFiles(config: Config, logger: Logger): void {
  const database = config.database.dialect === 'sqlite' && config.database.file !== ':memory:' ? path.resolve(config.database.file) : null;
  const folders = [...new Set([config.dataDir, ...(database ? [path.dirname(database)] : [])])];
  const files = database ? [database, `${database}-wal`, `${database}-shm`] : [];
  const open = openToOthers([...folders, outboxDir(config), ...files]);
  if (open.length === 0) return;
  logger.warn(
    { files: open },
    `other users of this machine may read ${open.join(', ')}: they hold the instance's secret, visitors' submissions and emails; \`chmod -R go= ${folders.join(' ')}\` closes them (Formgate makes new ones 0700 and 0600)`,
  );
}

/** How mail leaves, for the ready line: `smtp`, or `files` with the folder they are written to. */
function mailFields(config: Config): { mail: 'smtp' | 'files'; outbox?: string } {
  return config.smtpUrl ? { mail: 'smtp' } : { mail: 'files', outbox: outboxDir(config) };
}

/** `formgate serve`: migrates, then runs every surface until SIGTERM or SIGINT. */
export async function serve(config: Config, explicit: { publicUrl: boolean; submitUrl: boolean }): Promise<void> {
  // Requests waiting on the database outlive the young generation; by default V8 then lets the old
  // one grow up to four times over before collecting, and a burst's peak memory depended on when
  // it happened to (130 to 210 MB on the benchmark). Read at every collection, so it can be set now.
  v8.setFlagsFromString('--heap-growing-percent=25');
  const logger = createLogger(config);
  guardProcess(logger);
  for (const warning of unknownVariableWarnings(process.env)) logger.warn(warning);
  const sqliteShared = redisOnSqliteWarning(config);
  if (sqliteShared) logger.warn({ database: 'sqlite', redis: true }, sqliteShared);
  const ctx = await openContext(config, { logger });
  warnAboutOpenFiles(config, logger);
  const surfaces = await listen(ctx, logger, explicit);
  const stopSpamPurge = startSpamPurge(ctx, logger);
  const stopSpamDigests = startSpamDigests(ctx, logger);
  const stopAssignedDigests = startAssignedDigests(ctx, logger);
  const stopAltchaPurge = startAltchaPurge(ctx, logger);
  const stopDeliveryPurge = startDeliveryPurge(ctx, logger);
  const stopAuditPurge = startAuditPurge(ctx, logger);
  const stopRetention = startSubmissionRetention(ctx, logger);
  const stopFileSweep = startFileSweep(ctx, logger);
  const delivery = startDelivery(ctx, logger);
  const searchIndexer = startSearchIndexing(ctx, logger);
  const trustWarning = proxyTrustWarning(config.trustProxy, config.host);
  if (trustWarning) logger.warn({ trustProxy: config.trustProxy }, trustWarning);
  const unsent = mailWarning(config);
  if (unsent) logger.warn({ mail: 'files', outbox: outboxDir(config) }, unsent);
  const unguarded = addressChecksOffWarning(config.allowPrivateWebhooks);
  if (unguarded) logger.warn({ allowPrivateWebhooks: true }, unguarded);
  const strangers = openSignupWarning(config, ctx.instance.usage());
  if (strangers) logger.warn({ signup: config.signup, usage: ctx.instance.usage() }, strangers);

  let stopping: { at: number; windowOpen: boolean; endWindow: () => void } | null = null;
  const stop = async (signal: NodeJS.Signals) => {
    // SIGINT is a terminal's Ctrl-C: nothing balances a foreground process, so it stops at once.
    const windowMs = signal === 'SIGINT' ? 0 : config.drainWindowMs;
    let endWindow!: () => void;
    // what ended the window, said in its log line: its timer (the full window) or an operator's second signal
    const windowEnded = new Promise<'timer' | 'signal'>((resolve) => (endWindow = () => resolve('signal')));
    stopping = { at: performance.now(), windowOpen: windowMs > 0, endWindow };
    // first: /healthz answers 503 `stopping` from now on, while both surfaces still listen and serve
    surfaces.beginStopping();
    if (windowMs > 0)
      logger.info(
        { signal, drainWindowMs: windowMs },
        `shutting down: /healthz answers 503 "stopping" and requests are still served for ${windowMs / 1000} s, so that load balancers stop choosing this instance; then requests in flight are finished (another signal ends the wait)`,
      );
    else logger.info({ signal, drainWindowMs: 0 }, 'shutting down: finishing requests in flight');
    const deadlineMs = Math.max(STOP_DEADLINE_MS, windowMs + AFTER_WINDOW_MS);
    const timer = setTimeout(() => {
      logger.error(`shutdown took over ${deadlineMs / 1000} s; exiting`);
      process.exit(1);
    }, deadlineMs).unref();
    try {
      stopSpamPurge();
      stopSpamDigests();
      stopAssignedDigests();
      stopAltchaPurge();
      stopDeliveryPurge();
      stopAuditPurge();
      stopRetention();
      stopFileSweep();
      // deliveries wind down from the signal: the other instances take what is due meanwhile
      const deliveriesStopped = delivery.stop(DELIVERY_DEADLINE_MS);
      if (windowMs > 0) {
        let windowTimer: NodeJS.Timeout | undefined;
        const endedBy = await Promise.race([windowEnded, new Promise<'timer'>((resolve) => (windowTimer = setTimeout(() => resolve('timer'), windowMs)))]);
        clearTimeout(windowTimer);
        stopping.windowOpen = false;
        logger.info({ drainWindowMs: windowMs, endedBy }, 'drain window over: no longer taking connections, finishing requests in flight');
      }
      // Connections and deliveries wind down side by side: what is cut at its deadline is safe (an
      // unanswered request was never acknowledged; a delivery runs again once its lease ends).
      const [drained] = await Promise.all([surfaces.close({ deadlineMs: DRAIN_DEADLINE_MS, idleGraceMs: IDLE_GRACE_MS }), deliveriesStopped]);
      if (drained.cut > 0)
        logger.warn(
          { cut: drained.cut },
          `closed ${drained.cut} connection(s) whose request had not ended ${DRAIN_DEADLINE_MS / 1000} s after the listeners closed`,
        );
      await searchIndexer.stop();
      await ctx.close();
      clearTimeout(timer);
      logger.info('stopped');
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  // NOTE: on, not once: a signal often comes twice (Ctrl-C or systemd signal the whole process
  // group, and npm passes its own on), and with no listener left the second ended the process at
  // once, mid-drain. A repeat within REPEAT_MS is that; a later one is the operator's, and ends the
  // drain window (the drain after it has its own deadlines, so nothing more is hurried).
  const onSignal = (signal: NodeJS.Signals) => {
    if (!stopping) return void stop(signal);
    if (!stopping.windowOpen) return;
    if (performance.now() - stopping.at < REPEAT_MS) {
      logger.info({ signal }, `${signal} again within ${REPEAT_MS / 1000} s: taken as the same stop (a process group's and npm's), the drain window goes on`);
      return;
    }
    stopping.windowOpen = false;
    logger.info({ signal }, `${signal} again: the drain window ends now`);
    stopping.endWindow();
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => onSignal(signal));
  // NOTE: said only now that a signal is handled: whoever reads this line may stop the process at once,
  // and a SIGTERM that came before the listener killed it mid-start (exit by signal, no drain)
  logger.info(
    {
      version: VERSION,
      dashboardUrl: config.publicUrl,
      baseUrl: config.baseUrl,
      submitUrl: config.submitUrl,
      database: config.database.dialect,
      trustProxy: config.trustProxy,
      ...mailFields(config),
      files: ctx.files.describe(),
    },
    `Formgate is ready (v${VERSION}): open ${config.publicUrl} · API at ${config.baseUrl} · forms post to ${config.submitUrl}/<formId> · files in ${ctx.files.describe()}`,
  );
}
