// What `formgate import` reports: the counts per kind, the lines to act on, as JSON or as text.

export interface KindCounts {
  created: number;
  existing: number;
  conflicts: number;
  /** Not imported: invalid at the source, or refused here (see `skipped` lines). */
  skipped: number;
}

/** What a run did, per kind, and what is left for the operator. */
export interface ImportSummary {
  source: string;
  owner: string;
  workspaces: KindCounts;
  forms: KindCounts;
  templates: KindCounts;
  submissions: KindCounts;
  /** Ids taken here by something else: never touched. */
  conflicts: string[];
  /** Items not imported, and why. */
  skipped: string[];
  /** What the API cannot carry, or this installation did not keep: what the operator does next. */
  toDo: string[];
  /** Why the run stopped before the end (run it again to go on); absent when it finished. */
  stopped?: string;
  ms: number;
}

/** The summary as an operator reads it. */
export function summaryText(s: ImportSummary, submitUrl: string): string[] {
  const kind = (name: string, c: KindCounts) =>
    `${name.padEnd(12)} ${c.created} created, ${c.existing} already here, ${c.conflicts} conflict(s), ${c.skipped} skipped`;
  return [
    `Imported from ${s.source} for ${s.owner} in ${(s.ms / 1000).toFixed(1)} s${s.stopped ? ' (stopped before the end)' : ''}:`,
    kind('Workspaces', s.workspaces),
    kind('Forms', s.forms),
    kind('Templates', s.templates),
    kind('Submissions', s.submissions),
    ...(s.conflicts.length > 0 ? ['', 'Conflicts (left untouched):', ...s.conflicts.map((l) => `  ${l}`)] : []),
    ...(s.skipped.length > 0 ? ['', 'Skipped:', ...s.skipped.map((l) => `  ${l}`)] : []),
    '',
    'To do:',
    ...s.toDo.map((l) => `  - ${l}`),
    `  - Point each HTML form's action at ${submitUrl}/<form id>: the ids are unchanged.`,
    ...(s.stopped ? ['', `Stopped: ${s.stopped}`, 'Run the same command again: it goes on where it stopped.'] : []),
  ];
}
