import type { AddressInfo } from 'node:net';
import path from 'node:path';
import v8 from 'node:v8';
import type { Logger } from 'pino';
import { buildSurfaces, type Surfaces } from '../app.js';
import { API_PREFIX, type Config } from '../config/config.js';
import { openContext, type AppContext } from '../context.js';
import { DRAIN_DEADLINE_MS, IDLE_GRACE_MS } from '../web/connection-drain.js';
import { startDelivery } from '../jobs/delivery.js';
import { proxyTrustWarning } from '../net/client-address.js';
import { startSearchIndexing } from '../jobs/search-indexer.js';
import { startDeliveryPurge } from '../jobs/delivery-purge.js';
import { startSpamPurge } from '../jobs/spam-purge.js';
import { startSubmissionRetention } from '../jobs/submission-retention.js';
import { startFileSweep } from '../jobs/file-sweep.js';
import { mailWarning, outboxDir } from '../mail/transport.js';
import { openToOthers } from '../private-files.js';
import { unknownVariableWarnings } from '../config/unknown-variables.js';
import { createLogger } from './logger.js';
import { guardProcess } from './process-guard.js';
import { VERSION } from '../version.js';

// A container gets 10 s after SIGTERM by default (Docker, Kubernetes), then SIGKILL: the whole
// shutdown fits in 9. Requests under way get DRAIN_DEADLINE_MS (5 s), deliveries 6 s at the same
// time; closing the search index and the database takes the rest.
const DELIVERY_DEADLINE_MS = 6_000;
const STOP_DEADLINE_MS = 9_000;

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
  const ctx = await openContext(config, { logger });
  warnAboutOpenFiles(config, logger);
  const surfaces = await listen(ctx, logger, explicit);
  const stopSpamPurge = startSpamPurge(ctx, logger);
  const stopDeliveryPurge = startDeliveryPurge(ctx, logger);
  const stopRetention = startSubmissionRetention(ctx, logger);
  const stopFileSweep = startFileSweep(ctx, logger);
  const delivery = startDelivery(ctx, logger);
  const searchIndexer = startSearchIndexing(ctx, logger);
  const trustWarning = proxyTrustWarning(config.trustProxy, config.host);
  if (trustWarning) logger.warn({ trustProxy: config.trustProxy }, trustWarning);
  const unsent = mailWarning(config);
  if (unsent) logger.warn({ mail: 'files', outbox: outboxDir(config) }, unsent);
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

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing requests in flight');
    const timer = setTimeout(() => {
      logger.error(`shutdown took over ${STOP_DEADLINE_MS / 1000} s; exiting`);
      process.exit(1);
    }, STOP_DEADLINE_MS).unref();
    try {
      stopSpamPurge();
      stopDeliveryPurge();
      stopRetention();
      stopFileSweep();
      // Connections and deliveries wind down side by side: what is cut at its deadline is safe (an
      // unanswered request was never acknowledged; a delivery runs again once its lease ends).
      const [drained] = await Promise.all([surfaces.close({ deadlineMs: DRAIN_DEADLINE_MS, idleGraceMs: IDLE_GRACE_MS }), delivery.stop(DELIVERY_DEADLINE_MS)]);
      if (drained.cut > 0)
        logger.warn({ cut: drained.cut }, `closed ${drained.cut} connection(s) whose request had not ended ${DRAIN_DEADLINE_MS / 1000} s into the shutdown`);
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
  // once, mid-drain. The drain has its own deadline, so a repeat has nothing to hurry.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void stop(signal));
}
