import { setTimeout as sleep } from 'node:timers/promises';
import { freshDatabase, type BenchDialect } from '../lib/databases.js';
import { createAccount, createForm, seedSubmissions, settle, withContext } from '../lib/fixtures.js';
import { startFormgate } from '../lib/formgate.js';
import { sampleFields } from '../lib/sample-data.js';
import { SETTINGS } from '../lib/settings.js';
import type { Arrivals, Sinks } from '../lib/sinks.js';

export type DrainKind = 'emails' | 'webhooks';

export interface DrainResult {
  dialect: BenchDialect;
  kind: DrainKind;
  queued: number;
  delivered: number;
  /** Deliveries per second between the first and the last arrival at the sink. */
  perSec: number;
  peakRssMb: number | null;
  /** The server's CPU time per delivery, from its start to the last arrival. */
  cpuPerDeliveryUs: number | null;
}

const DEADLINE_MS = 180_000;

/**
 * 10,000 submissions are accepted while no worker runs (one notification email, or one webhook,
 * each); then `formgate serve` starts and its worker drains the outbox into the local sink.
 */
export async function runDrain(dialect: BenchDialect, kind: DrainKind, sinks: Sinks): Promise<DrainResult> {
  const database = await freshDatabase(dialect, `drain-${kind}`);
  await withContext(database, async (ctx) => {
    const account = await createAccount(ctx, 'drainer@example.com');
    // the account's own address: a member's, so notifications go without a confirmation (as in submit.ts)
    const settings = kind === 'emails' ? { notificationEmails: ['drainer@example.com'] } : { webhookUrl: sinks.webhookUrl };
    const formId = await createForm(ctx, account, { name: 'Contact', ...settings });
    await seedSubmissions(ctx, formId, SETTINGS.drainJobs, sampleFields);
    await settle(ctx);
  });
  await sinks.reset();
  const formgate = await startFormgate({ databaseUrl: database.url, dataDir: database.dataDir, smtpUrl: sinks.smtpUrl });
  let arrivals: Arrivals;
  const cpuAtStart = formgate.cpuMs();
  try {
    const deadline = performance.now() + DEADLINE_MS;
    do {
      await sleep(100);
      arrivals = (await sinks.stats())[kind];
    } while (arrivals.count < SETTINGS.drainJobs && performance.now() < deadline);
    const peakRssMb = formgate.peakRssMb();
    const cpuMs = formgate.cpuMs();
    const cpuPerDeliveryUs = cpuAtStart === null || cpuMs === null || arrivals.count === 0 ? null : Math.round(((cpuMs - cpuAtStart) * 1000) / arrivals.count);
    const seconds = arrivals.firstAt && arrivals.lastAt && arrivals.count > 1 ? (arrivals.lastAt - arrivals.firstAt) / 1000 : Infinity;
    return {
      dialect,
      kind,
      queued: SETTINGS.drainJobs,
      delivered: arrivals.count,
      perSec: Math.round((arrivals.count - 1) / seconds),
      peakRssMb,
      cpuPerDeliveryUs,
    };
  } finally {
    await formgate.stop();
  }
}
