import type { LoadFigures } from '../load/spec.js';
import { measureBaseline, measureFloor } from '../lib/baseline.js';
import { freshDatabase, type BenchDatabase, type BenchDialect } from '../lib/databases.js';
import { createAccount, createForm, seedSubmissions, settle, withContext, type Account } from '../lib/fixtures.js';
import { cpuPerRequestUs, startFormgate, type Formgate } from '../lib/formgate.js';
import { runLoad } from '../lib/load.js';
import { CITIES, sampleFields, SURNAMES } from '../lib/sample-data.js';
import { SETTINGS } from '../lib/settings.js';

/** A workspace whose one form holds 50,000 accepted submissions, and its owner's token. */
export interface ListFixture {
  database: BenchDatabase;
  account: Account;
  formId: string;
  seedMs: number;
}

export interface ListResult {
  dialect: BenchDialect;
  baseline: LoadFigures;
  /** The storage floor's cursor walks over the same table (bench/servers/floor.ts): for scale, no target. */
  floor: LoadFigures;
  /** 64 connections, each walking the pages by their cursors from page 1. */
  walk: LoadFigures;
  /** The server's CPU time per request of the walks. */
  walkCpuPerRequestUs: number | null;
  ratio: number;
  page1: LoadFigures;
  page1000: LoadFigures;
  /** The server's CPU time per request of each: steadier than requests/s when others load the machine. */
  page1CpuPerRequestUs: number | null;
  page1000CpuPerRequestUs: number | null;
}

export interface SearchResult {
  dialect: BenchDialect;
  terms: string[];
  search: LoadFigures;
}

/** Seeds the list and search scenarios' workspace through the intake pipeline (no deliveries: the form has none). */
export async function seedListFixture(dialect: BenchDialect): Promise<ListFixture> {
  const database = await freshDatabase(dialect, 'list');
  const started = performance.now();
  return withContext(database, async (ctx) => {
    const account = await createAccount(ctx, 'lister@example.com');
    const formId = await createForm(ctx, account, { name: 'Contact' });
    await seedSubmissions(ctx, formId, SETTINGS.listSubmissions, sampleFields);
    await settle(ctx);
    return { database, account, formId, seedMs: performance.now() - started };
  });
}

function apiLoad(formgate: Formgate, account: Account, connections: number) {
  return {
    origin: formgate.apiOrigin,
    connections,
    durationSec: SETTINGS.durationSec,
    warmupSec: SETTINGS.warmupSec,
    method: 'GET' as const,
    headers: { authorization: `Bearer ${account.token}`, accept: 'application/json' },
  };
}

/** `GET /forms/{id}/submissions?limit=25`: cursor walks at 64 connections, then page 1 and page 1000 alone. */
export async function runList(fixture: ListFixture): Promise<ListResult> {
  const formgate = await startFormgate({ databaseUrl: fixture.database.url, dataDir: fixture.database.dataDir });
  try {
    const base = apiLoad(formgate, fixture.account, SETTINGS.connections);
    const firstPage = `/public/v1/forms/${fixture.formId}/submissions?limit=25`;
    const baseline = await measureBaseline({ ...base, paths: [firstPage] });
    const floorWalk = { ...base, paths: [`/forms/${fixture.formId}/submissions?limit=25`], followCursorPages: SETTINGS.listSubmissions / 25 };
    const floor = await measureFloor(fixture.database, floorWalk);
    const cpuBefore = formgate.cpuMs();
    const walk = await runLoad({ ...base, paths: [firstPage], followCursorPages: SETTINGS.listSubmissions / 25 });
    const cpuAfter = formgate.cpuMs();
    const walkCpuPerRequestUs = cpuPerRequestUs(cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore, walk);
    const page1000 = `${firstPage}&startingAfter=${encodeURIComponent(await cursorBefore(formgate, fixture, firstPage, 1000))}`;
    // in two halves each, ordered page 1, page 1000, page 1000, page 1: a change in the machine's
    // other load that grows or shrinks steadily falls on both alike
    const half = { ...base, durationSec: SETTINGS.durationSec / 2, warmupSec: 1 };
    const rounds: { figures: LoadFigures; cpuMs: number | null }[] = [];
    for (const path of [firstPage, page1000, page1000, firstPage]) {
      const before = formgate.cpuMs();
      const figures = await runLoad({ ...half, paths: [path] });
      const after = formgate.cpuMs();
      rounds.push({ figures, cpuMs: before === null || after === null ? null : after - before });
    }
    const [page1, deep] = [combine(rounds[0]!.figures, rounds[3]!.figures), combine(rounds[1]!.figures, rounds[2]!.figures)];
    const cpuOf = (a: (typeof rounds)[number], b: (typeof rounds)[number], figures: LoadFigures) =>
      cpuPerRequestUs(a.cpuMs === null || b.cpuMs === null ? null : a.cpuMs + b.cpuMs, figures);
    return {
      dialect: fixture.database.dialect,
      baseline,
      floor,
      walk,
      walkCpuPerRequestUs,
      ratio: walk.requestsPerSec / baseline.requestsPerSec,
      page1,
      page1000: deep,
      page1CpuPerRequestUs: cpuOf(rounds[0]!, rounds[3]!, page1),
      page1000CpuPerRequestUs: cpuOf(rounds[1]!, rounds[2]!, deep),
    };
  } finally {
    await formgate.stop();
  }
}

/** `GET /workspaces/{id}/submissions?search=…&limit=25`, rotating over terms that match one row up to 1 in 16. */
export async function runSearch(fixture: ListFixture): Promise<SearchResult> {
  const terms = [CITIES[3]!, SURNAMES[11]!, 'ref31337x', 'invoice', 'grace.', '& co', 'about the api', 'lisbon about a refund'].map((t) => t.toLowerCase());
  const formgate = await startFormgate({ databaseUrl: fixture.database.url, dataDir: fixture.database.dataDir });
  try {
    const paths = terms.map((term) => `/public/v1/workspaces/${fixture.account.workspaceId}/submissions?limit=25&search=${encodeURIComponent(term)}`);
    const search = await runLoad({ ...apiLoad(formgate, fixture.account, SETTINGS.searchConnections), paths });
    return { dialect: fixture.database.dialect, terms, search };
  } finally {
    await formgate.stop();
  }
}

/** Two runs of the same load as one: their requests over their time, the mean p50 and the worse p99. */
function combine(a: LoadFigures, b: LoadFigures): LoadFigures {
  const answered2xx = a.answered2xx + b.answered2xx;
  const durationSec = a.durationSec + b.durationSec;
  const statusCodes = { ...a.statusCodes };
  for (const [code, count] of Object.entries(b.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + count;
  return {
    requestsPerSec: Math.round(answered2xx / durationSec),
    p50Ms: (a.p50Ms + b.p50Ms) / 2,
    p99Ms: Math.max(a.p99Ms, b.p99Ms),
    errors: a.errors + b.errors,
    answered2xx,
    warmup2xx: a.warmup2xx + b.warmup2xx,
    durationSec,
    statusCodes,
  };
}

/** The cursor that opens page `page`, found by walking there as a client does. */
async function cursorBefore(formgate: Formgate, fixture: ListFixture, firstPage: string, page: number): Promise<string> {
  let cursor: string | null = null;
  for (let i = 1; i < page; i++) {
    const url: string = `${formgate.apiOrigin}${firstPage}${cursor ? `&startingAfter=${encodeURIComponent(cursor)}` : ''}`;
    const response = await fetch(url, { headers: { authorization: `Bearer ${fixture.account.token}` } });
    const body = (await response.json()) as { nextCursor: string | null };
    if (!body.nextCursor) throw new Error(`the list ended before page ${page}`);
    cursor = body.nextCursor;
  }
  return cursor!;
}
