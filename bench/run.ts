/**
 * `npm run bench`: the benchmark suite of issue 5. Runs each scenario against the real
 * `formgate serve` (built dist/), prints every figure next to its target, and writes them with the
 * machine's description to bench/results/<date>.json. See bench/README.md for how to read them.
 *
 * FORMGATE_BENCH_ONLY=submit,list,search,drain,start,dashboard,charts,inbox runs a part; FORMGATE_BENCH_DIALECTS=sqlite one dialect.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BENCH_DIR } from './lib/children.js';
import { postgresAnswers, removeDatabases, type BenchDialect } from './lib/databases.js';
import { describeMachine } from './lib/machine.js';
import { formatTable, rowsOf, type Results } from './lib/report.js';
import { SETTINGS } from './lib/settings.js';
import { startSinks } from './lib/sinks.js';
import { runCharts } from './scenarios/charts.js';
import { runDashboard } from './scenarios/dashboard.js';
import { runDrain } from './scenarios/drain.js';
import { runInbox } from './scenarios/inbox.js';
import { runList, runSearch, seedListFixture } from './scenarios/list.js';
import { runStart } from './scenarios/start.js';
import { runSubmit } from './scenarios/submit.js';

const only = new Set((process.env.FORMGATE_BENCH_ONLY ?? 'start,submit,list,search,drain,dashboard,charts,inbox').split(','));
const wanted = (process.env.FORMGATE_BENCH_DIALECTS ?? 'sqlite,postgres').split(',') as BenchDialect[];

function say(message: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

async function main(): Promise<void> {
  const started = performance.now();
  const machine = await describeMachine();
  const dialects = wanted.filter((d) => d === 'sqlite') as BenchDialect[];
  if (wanted.includes('postgres')) {
    if (await postgresAnswers()) dialects.push('postgres');
    else say('SKIPPED: no PostgreSQL answers (set FORMGATE_BENCH_PG_URL); the PostgreSQL figures are missing');
  }
  const results: Results = { submit: [], list: [], search: [], drain: [], start: [], dashboard: [], charts: [], inbox: [] };
  const sinks = await startSinks();
  try {
    for (const dialect of dialects) {
      if (only.has('start')) {
        say(`start, ${dialect}`);
        results.start.push(await runStart(dialect));
      }
      if (only.has('dashboard')) {
        say(`dashboard page, ${dialect}`);
        results.dashboard.push(await runDashboard(dialect));
      }
      if (only.has('inbox')) {
        say(`inbox, ${dialect}: seeding ${SETTINGS.inboxSubmissions.toLocaleString('en')} submissions over 4 forms, then triage`);
        const inbox = await runInbox(dialect);
        say(`inbox, ${dialect}: seeding and triage took ${Math.round(inbox.seedMs / 1000)} s`);
        results.inbox.push(inbox);
      }
      if (only.has('charts')) {
        say(`chart queries, ${dialect}: seeding 50,000 submissions over 30 days`);
        results.charts.push(await runCharts(dialect));
      }
      if (only.has('submit')) {
        say(`submit, ${dialect}: baseline, then formgate (${SETTINGS.warmupSec} s warm-up + ${SETTINGS.durationSec} s each)`);
        results.submit.push(await runSubmit(dialect, sinks));
      }
      if (only.has('list') || only.has('search')) {
        say(`list and search, ${dialect}: seeding ${SETTINGS.listSubmissions.toLocaleString('en')} submissions`);
        const fixture = await seedListFixture(dialect);
        say(`seeded in ${Math.round(fixture.seedMs / 1000)} s`);
        if (only.has('list')) results.list.push(await runList(fixture));
        if (only.has('search')) results.search.push(await runSearch(fixture));
      }
      if (only.has('drain')) {
        for (const kind of ['emails', 'webhooks'] as const) {
          say(`drain ${kind}, ${dialect}: seeding ${SETTINGS.drainJobs.toLocaleString('en')}, then draining`);
          results.drain.push(await runDrain(dialect, kind, sinks));
        }
      }
    }
  } finally {
    await sinks.stop();
    await removeDatabases();
  }
  const rows = rowsOf(results);
  const table = formatTable(rows);
  process.stdout.write(`\n${table}\n\n`);
  const seconds = Math.round((performance.now() - started) / 1000);
  const file = path.join(BENCH_DIR, 'results', `${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify({ machine, settings: SETTINGS, seconds, rows, results }, null, 2)}\n`);
  const missed = rows.filter((r) => r.met === false).length;
  process.stdout.write(`${missed === 0 ? 'every target met' : `${missed} target(s) missed`}; ${seconds} s; written to ${path.relative(process.cwd(), file)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  void removeDatabases().finally(() => process.exit(1));
});
