import type { LoadFigures } from '../load/spec.js';
import type { ChartsResult } from '../scenarios/charts.js';
import type { DashboardResult } from '../scenarios/dashboard.js';
import type { DrainResult } from '../scenarios/drain.js';
import type { InboxResult } from '../scenarios/inbox.js';
import type { ListResult, SearchResult } from '../scenarios/list.js';
import type { StartResult } from '../scenarios/start.js';
import type { SubmitResult } from '../scenarios/submit.js';

/** One line of the table: a figure, its target, and whether it is met (null: no target, shown for context). */
export interface Row {
  scenario: string;
  figure: string;
  measured: string;
  target: string;
  met: boolean | null;
}

export interface Results {
  submit: SubmitResult[];
  list: ListResult[];
  search: SearchResult[];
  drain: DrainResult[];
  start: StartResult[];
  dashboard: DashboardResult[];
  charts: ChartsResult[];
  inbox: InboxResult[];
}

const NAME = { sqlite: 'SQLite', postgres: 'PostgreSQL' } as const;
const SUBMIT_RATIO = { sqlite: 0.5, postgres: 0.3 } as const;

const ratio = (n: number) => n.toFixed(2);
const cpu = (us: number | null) => (us === null ? '?' : `${us.toLocaleString('en')} µs`);
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const share = (f: LoadFigures, of: LoadFigures) => ratio(f.requestsPerSec / of.requestsPerSec);
const load = (f: LoadFigures) => `${f.requestsPerSec.toLocaleString('en')} req/s, p50 ${f.p50Ms} ms, p99 ${f.p99Ms} ms, ${f.errors} errors`;

/** The targets of issue 5, each next to what this run measured. */
export function rowsOf(results: Results): Row[] {
  const rows: Row[] = [];
  for (const r of results.submit) {
    const scenario = `submit, ${NAME[r.dialect]}`;
    rows.push({ scenario, figure: 'bare-Node baseline', measured: load(r.baseline), target: '', met: null });
    rows.push({ scenario, figure: 'storage floor', measured: `${load(r.floor)} (${share(r.floor, r.baseline)} of baseline)`, target: '', met: null });
    rows.push({ scenario, figure: 'formgate', measured: `${load(r.formgate)} (${share(r.formgate, r.floor)} of the floor)`, target: '', met: null });
    rows.push({
      scenario,
      figure: 'share of baseline',
      measured: ratio(r.ratio),
      target: `≥ ${SUBMIT_RATIO[r.dialect]}`,
      met: r.ratio >= SUBMIT_RATIO[r.dialect],
    });
    rows.push({
      scenario,
      figure: 'server CPU per submission',
      measured: `${cpu(r.cpuPerRequestUs)} (deliveries made meanwhile included)`,
      target: '',
      met: null,
    });
    if (r.dialect === 'sqlite') {
      rows.push({ scenario, figure: 'p99 latency', measured: `${r.formgate.p99Ms} ms`, target: '≤ 25 ms', met: r.formgate.p99Ms <= 25 });
      rows.push({ scenario, figure: 'errors', measured: String(r.formgate.errors), target: '0', met: r.formgate.errors === 0 });
    }
    rows.push({
      scenario,
      figure: 'answered ≤ stored',
      measured: `${r.answered} ≤ ${r.stored} (${r.jobs} jobs, ${r.delivered} delivered)`,
      target: 'every answered one stored',
      met: r.answered <= r.stored,
    });
    rows.push({
      scenario: `memory, ${NAME[r.dialect]}`,
      figure: 'peak RSS during submit',
      measured: `${r.peakRssMb ?? '?'} MB`,
      target: '≤ 150 MB',
      met: r.peakRssMb === null ? null : r.peakRssMb <= 150,
    });
  }
  for (const r of results.list) {
    const scenario = `list, ${NAME[r.dialect]}`;
    rows.push({ scenario, figure: 'bare-Node baseline (GET)', measured: load(r.baseline), target: '', met: null });
    rows.push({ scenario, figure: 'storage floor (walks)', measured: `${load(r.floor)} (${share(r.floor, r.baseline)} of baseline)`, target: '', met: null });
    rows.push({ scenario, figure: 'cursor walks', measured: `${load(r.walk)} (${share(r.walk, r.floor)} of the floor)`, target: '', met: null });
    rows.push({ scenario, figure: 'share of baseline', measured: ratio(r.ratio), target: '≥ 0.4', met: r.ratio >= 0.4 });
    rows.push({ scenario, figure: 'server CPU per page', measured: cpu(r.walkCpuPerRequestUs), target: '', met: null });
    const deep = r.page1000.requestsPerSec / r.page1.requestsPerSec;
    rows.push({
      scenario,
      figure: 'page 1000 vs page 1',
      measured: `${r.page1000.requestsPerSec.toLocaleString('en')} vs ${r.page1.requestsPerSec.toLocaleString('en')} req/s (${ratio(deep)}), p50 ${r.page1000.p50Ms} vs ${r.page1.p50Ms} ms`,
      target: 'as fast (≥ 0.9)',
      met: deep >= 0.9,
    });
    rows.push({
      scenario,
      figure: 'server CPU per page 1000, page 1',
      measured: `${cpu(r.page1000CpuPerRequestUs)}, ${cpu(r.page1CpuPerRequestUs)}`,
      target: '',
      met: null,
    });
  }
  for (const r of results.search) {
    const scenario = `search, ${NAME[r.dialect]}`;
    rows.push({
      scenario,
      figure: `${r.search.requestsPerSec.toLocaleString('en')} req/s, ${r.search.errors} errors`,
      measured: `p50 ${r.search.p50Ms} ms`,
      target: 'p50 ≤ 20 ms',
      met: r.search.p50Ms <= 20 && r.search.errors === 0,
    });
    rows.push({ scenario, figure: '', measured: `p99 ${r.search.p99Ms} ms`, target: 'p99 ≤ 60 ms', met: r.search.p99Ms <= 60 });
  }
  for (const r of results.drain) {
    const target = r.kind === 'emails' ? 500 : 1000;
    rows.push({
      scenario: `drain ${r.kind}, ${NAME[r.dialect]}`,
      figure: `${r.delivered} of ${r.queued} delivered`,
      measured: `${r.perSec.toLocaleString('en')} ${r.kind}/s`,
      target: `≥ ${target.toLocaleString('en')}/s`,
      met: r.delivered === r.queued && r.perSec >= target,
    });
    rows.push({ scenario: `drain ${r.kind}, ${NAME[r.dialect]}`, figure: 'server CPU per delivery', measured: cpu(r.cpuPerDeliveryUs), target: '', met: null });
  }
  for (const r of results.start) {
    rows.push({
      scenario: `start, ${NAME[r.dialect]}`,
      figure: `median of ${r.startsMs.join(', ')} ms`,
      measured: `${r.medianMs} ms`,
      target: '≤ 1,000 ms',
      met: r.medianMs <= 1000,
    });
  }
  for (const r of results.dashboard) {
    const scenario = `dashboard page, ${NAME[r.dialect]}`;
    rows.push({
      scenario,
      figure: `workspace page, 1 connection, ${r.page.errors} errors`,
      measured: `p50 ${r.page.p50Ms} ms, p99 ${r.page.p99Ms} ms`,
      target: 'p50 ≤ 5 ms',
      met: r.page.p50Ms <= 5 && r.page.errors === 0,
    });
    rows.push({ scenario, figure: 'server CPU per page', measured: cpu(r.cpuPerPageUs), target: '', met: null });
  }
  for (const r of results.inbox) {
    const scenario = `inbox, ${NAME[r.dialect]}`;
    rows.push({
      scenario,
      figure: `${r.submissions.toLocaleString('en')} submissions, ${r.open.toLocaleString('en')} open`,
      measured: '1 connection, as a browser asks (Accept-Encoding)',
      target: '',
      met: null,
    });
    for (const s of r.surfaces) {
      rows.push({
        scenario,
        figure: `${s.name}, ${s.load.errors} errors`,
        measured: `p50 ${s.load.p50Ms} ms, p99 ${s.load.p99Ms} ms, ${cpu(s.cpuPerRequestUs)} CPU a page`,
        target: 'p50 ≤ 5 ms',
        met: s.load.p50Ms <= 5 && s.load.errors === 0,
      });
      rows.push({
        scenario,
        figure: `  its page: ${s.rows} rows`,
        measured: `${kb(s.sentBytes)} ${s.encoding} (${kb(s.htmlBytes)} of HTML)`,
        target: '50 rows, ≤ 60 KB',
        met: s.rows === 50 && s.sentBytes <= 60 * 1024,
      });
    }
  }
  for (const r of results.charts) {
    const scenario = `chart queries, ${NAME[r.dialect]}`;
    for (const [figure, f] of [
      [`one form's 30 days, ${r.submissions.toLocaleString('en')} submissions`, r.form],
      ["workspace page's counts (20 forms: 30 days, month, last submission)", r.workspace],
    ] as const) {
      rows.push({ scenario, figure, measured: `p50 ${f.p50Ms} ms, p99 ${f.p99Ms} ms (${f.calls} calls)`, target: 'p50 ≤ 2 ms', met: f.p50Ms <= 2 });
    }
  }
  return rows;
}

/** The rows as a plain-text table. */
export function formatTable(rows: Row[]): string {
  const header = ['scenario', 'figure', 'measured', 'target', 'met'];
  const cells = rows.map((r) => [r.scenario, r.figure, r.measured, r.target, r.met === null ? '' : r.met ? 'yes' : 'NO']);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => c.map((s, i) => s.padEnd(widths[i]!)).join(' | ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('-|-'), ...cells.map(line)].join('\n');
}
