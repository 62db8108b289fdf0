interface Waiting<I, O> {
  item: I;
  resolve(outcome: O): void;
  reject(error: unknown): void;
}

/** An item once its write has ended: the outcome to answer, or why it failed. */
type Written<I, O> = { waiting: Waiting<I, O>; outcome: O } | { waiting: Waiting<I, O>; error: unknown };

/**
 * Group commit: what arrives while a batch is being written waits and goes into the next one
 * together (at least everything of one turn of the event loop), and each caller hears back only once
 * its item has committed and is durable. One write at a time, so batches grow with the load and never
 * queue on each other's rows. If a batch fails, each item is tried alone, so one bad item cannot sink
 * the others. `write` must be atomic: one transaction, or one statement.
 *
 * With a `durable` that flushes off the event loop, the next batch is written while the last one is
 * flushed, but only once it holds as many items: where flushes are short (an SSD) batches stay as
 * large as when each write waited for its flush; where they are long, writing goes on meanwhile.
 * Writing whatever had arrived halved batches and worsened the p99 on a fast disk.
 */
export class GroupCommit<I, O> {
  private queue: Waiting<I, O>[] = [];
  private scheduled = false;
  private writing = false;
  /** Batches written and not yet durable, and the size of the last one written. */
  private flushing = 0;
  private lastSize = 0;

  /**
   * `write` stores the items atomically and answers one outcome per item, in order. `durable`
   * resolves once everything `write` has committed so far is on the disk: for a `write` whose commit
   * returns before its flush (Database.transactionFlushedLater).
   */
  constructor(
    private readonly write: (items: I[]) => Promise<O[]>,
    private readonly durable: () => Promise<void> = () => Promise.resolve(),
  ) {}

  /** Resolves with the item's outcome once the transaction holding it has committed and is durable. */
  add(item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.writing || this.queue.length === 0) return;
    if (this.flushing > 0 && this.queue.length < this.lastSize) return;
    this.scheduled = true;
    setImmediate(() => void this.flush());
  }

  private async flush(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    this.scheduled = false;
    this.writing = true;
    const written = await this.writeBatch(batch);
    // asked before the next batch can begin, so it waits for this batch's commit and no later one
    const durable = this.durable();
    this.writing = false;
    this.flushing++;
    this.lastSize = batch.length;
    this.schedule();
    await durable.then(
      () => {
        for (const done of written) {
          if ('error' in done) done.waiting.reject(done.error);
          else done.waiting.resolve(done.outcome);
        }
      },
      (error: unknown) => {
        for (const done of written) done.waiting.reject('error' in done ? done.error : error);
      },
    );
    this.flushing--;
    this.schedule();
  }

  /** Writes the batch; never throws: each item ends with its outcome or its error. */
  private async writeBatch(batch: Waiting<I, O>[]): Promise<Written<I, O>[]> {
    try {
      const outcomes = await this.write(batch.map((waiting) => waiting.item));
      return batch.map((waiting, i) => ({ waiting, outcome: outcomes[i]! }));
    } catch (error) {
      if (batch.length === 1) return [{ waiting: batch[0]!, error }];
      const written: Written<I, O>[] = [];
      for (const waiting of batch) {
        written.push(
          await this.write([waiting.item]).then(
            ([outcome]) => ({ waiting, outcome: outcome! }),
            (error: unknown) => ({ waiting, error }),
          ),
        );
      }
      return written;
    }
  }
}
