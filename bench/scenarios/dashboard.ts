import type { LoadFigures } from '../load/spec.js';
import { freshDatabase, type BenchDialect } from '../lib/databases.js';
import { createAccount, createForm, withContext } from '../lib/fixtures.js';
import { cpuPerRequestUs, startFormgate } from '../lib/formgate.js';
import { runLoad } from '../lib/load.js';
import { SETTINGS } from '../lib/settings.js';

export interface DashboardResult {
  dialect: BenchDialect;
  /** A workspace's page (session lookup, workspaces, plan, 20 forms) for a logged-in person, one request at a time. */
  page: LoadFigures;
  cpuPerPageUs: number | null;
}

const FORMS = 20;

/** A logged-in person opening their workspace's page: what a page costs on the server. */
export async function runDashboard(dialect: BenchDialect): Promise<DashboardResult> {
  const database = await freshDatabase(dialect, 'dashboard');
  const { workspaceId, session } = await withContext(database, async (ctx) => {
    const account = await createAccount(ctx, 'owner@example.com');
    for (let i = 1; i <= FORMS; i++) await createForm(ctx, account, { name: `Form ${i}` });
    const { secret } = await ctx.sessions.start(account.userId);
    return { workspaceId: account.workspaceId, session: secret };
  });
  const formgate = await startFormgate({ databaseUrl: database.url, dataDir: database.dataDir });
  try {
    const cpuBefore = formgate.cpuMs();
    const page = await runLoad({
      origin: formgate.apiOrigin,
      connections: 1,
      durationSec: SETTINGS.durationSec,
      warmupSec: SETTINGS.warmupSec,
      method: 'GET',
      headers: { cookie: `fg_session=${session}`, accept: 'text/html' },
      paths: [`/w/${workspaceId}`],
    });
    const cpuAfter = formgate.cpuMs();
    return { dialect, page, cpuPerPageUs: cpuPerRequestUs(cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore, page) };
  } finally {
    await formgate.stop();
  }
}
