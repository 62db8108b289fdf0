/**
 * The figures `npm run bench:compare` holds side by side, read from each run's results file
 * (bench/results/<date>.json, the same shape since issue 5), and how two sets of runs are judged.
 */

/** One figure of one scenario's result: how to read it, and which way is better. */
export interface FigureDef {
  scenario: 'submit' | 'list';
  name: string;
  better: 'higher' | 'lower';
  of(result: any): number | null;
}

const share = (part: { requestsPerSec?: number } | undefined, whole: { requestsPerSec?: number } | undefined) =>
  part?.requestsPerSec && whole?.requestsPerSec ? part.requestsPerSec / whole.requestsPerSec : null;

export const FIGURES: FigureDef[] = [
  { scenario: 'submit', name: 'submit, share of its storage floor', better: 'higher', of: (r) => share(r.formgate, r.floor) },
  { scenario: 'submit', name: 'submit, server CPU per submission (µs)', better: 'lower', of: (r) => r.cpuPerRequestUs ?? null },
  { scenario: 'submit', name: 'submit, p99 (ms)', better: 'lower', of: (r) => r.formgate?.p99Ms ?? null },
  { scenario: 'submit', name: 'submit, peak RSS (MB)', better: 'lower', of: (r) => r.peakRssMb ?? null },
  { scenario: 'list', name: 'list walks, share of the floor', better: 'higher', of: (r) => share(r.walk, r.floor) },
  { scenario: 'list', name: 'list walks, server CPU per page (µs)', better: 'lower', of: (r) => r.walkCpuPerRequestUs ?? null },
];

/** The figures of one results file, keyed "<dialect>: <figure>". */
export function figuresOf(results: Record<string, any[]>): Map<string, number> {
  const figures = new Map<string, number>();
  for (const def of FIGURES) {
    for (const result of results[def.scenario] ?? []) {
      const value = def.of(result);
      if (value !== null && Number.isFinite(value)) figures.set(`${result.dialect}: ${def.name}`, value);
    }
  }
  return figures;
}

/** Which way is better for a figure keyed by figuresOf. */
export function betterOf(key: string): 'higher' | 'lower' {
  return FIGURES.find((def) => key.endsWith(`: ${def.name}`))?.better ?? 'higher';
}

export interface Comparison {
  figure: string;
  base: number[];
  head: number[];
  /** Median of HEAD over median of the base: above 1 means HEAD's figure is larger. */
  ratio: number;
  /** The ratio's spread: the smallest and largest HEAD/base ratio over every pair of runs. */
  ratioLow: number;
  ratioHigh: number;
  verdict: 'better' | 'worse' | 'within noise';
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * Compares one figure's runs. A difference is beyond noise only when every run of one side beat
 * every run of the other (the two ranges do not overlap): with 3 runs a side that happens by chance
 * once in 10 comparisons, with 5 once in 126; and only when the medians differ by 3% or more, so
 * that two tight clusters a hair apart are not called a change.
 */
export function compare(figure: string, base: number[], head: number[], better: 'higher' | 'lower'): Comparison {
  const ratio = median(head) / median(base);
  const ratios = head.flatMap((h) => base.map((b) => h / b));
  const apart = Math.min(...head) > Math.max(...base) || Math.max(...head) < Math.min(...base);
  const large = Math.abs(ratio - 1) >= 0.03;
  let verdict: Comparison['verdict'] = 'within noise';
  if (apart && large) verdict = ratio > 1 === (better === 'higher') ? 'better' : 'worse';
  return { figure, base, head, ratio, ratioLow: Math.min(...ratios), ratioHigh: Math.max(...ratios), verdict };
}

/** The report: one line per figure, the runs of each side, the ratio with its spread and the verdict. */
export function formatComparisons(baseName: string, comparisons: Comparison[]): string {
  const fmt = (n: number) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));
  const lines = [`figure | ${baseName} (runs) | HEAD (runs) | HEAD / ${baseName} (spread) | verdict`, '---|---|---|---|---'];
  for (const c of comparisons) {
    const runs = (values: number[]) => `${fmt(median(values))} (${values.map(fmt).join(', ')})`;
    lines.push(`${c.figure} | ${runs(c.base)} | ${runs(c.head)} | ${c.ratio.toFixed(3)} (${c.ratioLow.toFixed(2)}–${c.ratioHigh.toFixed(2)}) | ${c.verdict}`);
  }
  return lines.join('\n');
}
