/** How often, at most, requests refused for a database that cannot write are logged (then counted). */
const STORAGE_LOG_INTERVAL_MS = 10_000;

/**
 * Logs failures of a database that cannot write without flooding: a full disk refuses every write,
 * and a stack trace per request (or per poll of a worker) would fill the log as fast as visitors
 * arrive, and with it maybe the very disk that is full. The first failure is logged in full, then
 * at most one a `intervalMs`, saying how many more failed meanwhile.
 */
export class StorageFailureLog {
  private lastAt = Number.NEGATIVE_INFINITY;
  private refused = 0;

  constructor(
    private readonly message = 'the database cannot take writes, or cannot be reached: requests that need it are answered 503 storage_unavailable until it can',
    private readonly intervalMs = STORAGE_LOG_INTERVAL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  note(log: { error(details: object, message: string): void }, err: unknown, details: object = {}): void {
    const now = this.now();
    if (now - this.lastAt < this.intervalMs) {
      this.refused++;
      return;
    }
    log.error({ err, ...details, alsoFailedSinceLastLine: this.refused }, this.message);
    this.lastAt = now;
    this.refused = 0;
  }
}
