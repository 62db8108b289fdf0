import { TEST_DIALECT } from './database.js';

/**
 * What a reliability suite did and found, printed when it ends (issue 18): the figures show that
 * nothing acknowledged was lost and nobody got in. Every suite prints the same eight lines, a dash
 * for a count the suite does not take (an isolation suite injects no faults), then its own.
 */
export interface Figures {
  requestsSent?: number;
  faultsInjected?: number;
  badInputsTried?: number;
  submissionsAcknowledged?: number;
  submissionsFound?: number;
  deliveriesExpected?: number;
  delivered?: number;
  duplicated?: number;
  /** Anything else the suite counts ("cross-account reads", "5xx answers"), printed after the rest. */
  more?: Record<string, number | string>;
}

const LABELS: [keyof Omit<Figures, 'more'>, string][] = [
  ['requestsSent', 'requests sent'],
  ['faultsInjected', 'faults injected'],
  ['badInputsTried', 'bad inputs tried'],
  ['submissionsAcknowledged', 'submissions acknowledged'],
  ['submissionsFound', 'submissions found'],
  ['deliveriesExpected', 'deliveries expected'],
  ['delivered', 'delivered'],
  ['duplicated', 'duplicated'],
];

/** The figures as the lines printed: a heading naming the suite and the database, then one line a count. */
export function formatFigures(suite: string, figures: Figures): string {
  const rows: [string, number | string][] = [];
  for (const [key, label] of LABELS) rows.push([label, figures[key] ?? '–']);
  for (const [label, value] of Object.entries(figures.more ?? {})) rows.push([label, value]);
  const width = Math.max(...rows.map(([label]) => label.length));
  const lines = rows.map(([label, value]) => `  ${`${label}:`.padEnd(width + 1)} ${value}`);
  return [`=== figures: ${suite} (${TEST_DIALECT}) ===`, ...lines, ''].join('\n');
}

/** Prints the figures on stdout, where the test runner's report shows them. */
export function printFigures(suite: string, figures: Figures): void {
  process.stdout.write(formatFigures(suite, figures));
}
