import { sql } from 'kysely';
import type { LoadFigures } from '../load/spec.js';
import { measureBaseline, measureFloor } from '../lib/baseline.js';
import { freshDatabase, type BenchDialect } from '../lib/databases.js';
import { createAccount, createForm, withContext } from '../lib/fixtures.js';
import { cpuPerRequestUs, startFormgate } from '../lib/formgate.js';
import { runLoad } from '../lib/load.js';
import { SUBMIT_BODY } from '../lib/sample-data.js';
import { SETTINGS } from '../lib/settings.js';
import type { Sinks } from '../lib/sinks.js';

export interface SubmitResult {
  dialect: BenchDialect;
  baseline: LoadFigures;
  /** The storage floor (bench/servers/floor.ts) on a database of its own: for scale, no target. */
  floor: LoadFigures;
  formgate: LoadFigures;
  ratio: number;
  peakRssMb: number | null;
  /** The server's CPU time per submission, the deliveries it made meanwhile included. */
  cpuPerRequestUs: number | null;
  /** Every answered submission must be in the database once the server has stopped. */
  answered: number;
  stored: number;
  jobs: number;
  /** Jobs delivered by the time the server stopped: the delivery work inside the CPU figure. */
  delivered: number;
}

const HEADERS = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };

/**
 * 64 connections post a 6-field urlencoded form asking for JSON, spread over the forms of several
 * upgraded workspaces (each allows 50,000), each form emailing its owner and calling a webhook.
 */
export async function runSubmit(dialect: BenchDialect, sinks: Sinks): Promise<SubmitResult> {
  const database = await freshDatabase(dialect, 'submit');
  const formIds = await withContext(database, async (ctx) => {
    const ids: string[] = [];
    for (let i = 0; i < SETTINGS.submitWorkspaces; i++) {
      const account = await createAccount(ctx, `owner${i}@example.com`);
      ids.push(await createForm(ctx, account, { name: `Contact ${i}`, notificationEmails: [`owner${i}@example.com`], webhookUrl: sinks.webhookUrl }));
    }
    return ids;
  });
  const load = {
    connections: SETTINGS.connections,
    durationSec: SETTINGS.durationSec,
    warmupSec: SETTINGS.warmupSec,
    method: 'POST' as const,
    headers: HEADERS,
    body: SUBMIT_BODY,
  };
  const baseline = await measureBaseline({ ...load, paths: ['/aaaaaaaaaaaaaaaaaaaa'] });
  const floor = await measureFloor(await freshDatabase(dialect, 'floor'), { ...load, paths: formIds.map((id) => `/${id}`), uniqueBodies: true });

  const formgate = await startFormgate({ databaseUrl: database.url, dataDir: database.dataDir, smtpUrl: sinks.smtpUrl });
  let figures: LoadFigures;
  let peakRssMb: number | null;
  let cpuMs: number | null;
  try {
    const cpuBefore = formgate.cpuMs();
    figures = await runLoad({ ...load, origin: formgate.submitOrigin, paths: formIds.map((id) => `/${id}`), uniqueBodies: true });
    const cpuAfter = formgate.cpuMs();
    cpuMs = cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore;
    peakRssMb = formgate.peakRssMb();
  } finally {
    await formgate.stop();
  }
  const { stored, jobs, delivered } = await withContext(database, async (ctx) => {
    const count = async (table: 'submissions' | 'jobs', where = sql`TRUE`) =>
      Number((await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(table)} WHERE ${where}`.execute(ctx.database.db)).rows[0]!.n);
    return { stored: await count('submissions'), jobs: await count('jobs'), delivered: await count('jobs', sql`status = 'done'`) };
  });
  return {
    dialect,
    baseline,
    floor,
    formgate: figures,
    ratio: figures.requestsPerSec / baseline.requestsPerSec,
    peakRssMb,
    cpuPerRequestUs: cpuPerRequestUs(cpuMs, figures),
    answered: figures.answered2xx + figures.warmup2xx,
    stored,
    jobs,
    delivered,
  };
}
