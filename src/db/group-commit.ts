interface Waiting<I, O> {
  item: I;
  resolve(outcome: O): void;
  reject(error: unknown): void;
}

/**
 * Group commit: what arrives while a batch is being written waits and goes into the next one
 * together (at least everything of one turn of the event loop), and each caller hears back only once
 * its item has committed. One write in flight at a time, so batches grow with the load and never
 * queue on each other's rows. If a batch fails, each item is tried alone, so one bad item cannot
 * sink the others. `write` must be atomic: one transaction, or one statement.
 */
export class GroupCommit<I, O> {
  private queue: Waiting<I, O>[] = [];
  private scheduled = false;
  private writing = false;

  /** `write` stores the items atomically and answers one outcome per item, in order. */
  constructor(private readonly write: (items: I[]) => Promise<O[]>) {}

  /** Resolves with the item's outcome once the transaction holding it has committed. */
  add(item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.writing) return;
    this.scheduled = true;
    setImmediate(() => void this.flush());
  }

  private async flush(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    this.scheduled = false;
    this.writing = true;
    try {
      await this.commit(batch);
    } finally {
      this.writing = false;
      if (this.queue.length > 0) this.schedule();
    }
  }

  private async commit(batch: Waiting<I, O>[]): Promise<void> {
    try {
      const outcomes = await this.write(batch.map((waiting) => waiting.item));
      batch.forEach((waiting, i) => waiting.resolve(outcomes[i]!));
    } catch (error) {
      if (batch.length === 1) return batch[0]!.reject(error);
      for (const waiting of batch) {
        await this.write([waiting.item]).then(([outcome]) => waiting.resolve(outcome!), waiting.reject);
      }
    }
  }
}
