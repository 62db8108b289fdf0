/**
 * Shares one pending lookup among the callers that ask for the same key while it runs: under load
 * many submissions to one form arrive together, and each needs the same row. Nothing is kept once
 * the lookup settles, so no caller sees a value older than its own arrival by more than that lookup.
 */
export class SingleFlight<T> {
  private readonly pending = new Map<string, Promise<T>>();

  constructor(private readonly lookup: (key: string) => Promise<T>) {}

  get(key: string): Promise<T> {
    const running = this.pending.get(key);
    if (running) return running;
    const started = this.lookup(key).finally(() => this.pending.delete(key));
    this.pending.set(key, started);
    return started;
  }
}
