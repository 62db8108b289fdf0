/** The fixed parameters of a benchmark run (FORMGATE_BENCH_DURATION / _WARMUP shorten it while developing). */
export const SETTINGS = {
  durationSec: Number(process.env.FORMGATE_BENCH_DURATION ?? 10),
  warmupSec: Number(process.env.FORMGATE_BENCH_WARMUP ?? 3),
  connections: 64,
  /** Search is judged on latency, so it runs at a moderate concurrency rather than saturated. */
  searchConnections: 8,
  /** Submissions in the list and search scenarios' workspace (its whole allowance). */
  listSubmissions: 50_000,
  drainJobs: 10_000,
  /** Submissions in the inbox scenario's workspace (issue 41's bar: an inbox of 100,000). */
  inboxSubmissions: 100_000,
  /** The submit scenario spreads its load over this many upgraded workspaces, each allowed 50,000 submissions. */
  submitWorkspaces: 8,
};
