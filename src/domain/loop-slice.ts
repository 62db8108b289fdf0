/** How long a walk over many rows may keep the event loop before it gives it back (issue 38). */
export const LOOP_SLICE_MS = 5;

let sliceMs = LOOP_SLICE_MS;

/**
 * Sets the share of every walk started from now on; answers what puts it back. NOTE: for tests:
 * at 0 a walk gives the loop back at every check, so what one turn holds is a count of rows, the
 * same on any machine, rather than however many batches a fast machine runs in 5 ms.
 */
export function setLoopSliceMs(ms: number): () => void {
  const before = sliceMs;
  sliceMs = ms;
  return () => {
    sliceMs = before;
  };
}

/**
 * A long walk's share of the event loop (an export, an erasure, a purge). NOTE: awaiting a
 * better-sqlite3 query never gives the loop back by itself: Kysely's promise settles as a microtask,
 * so a walk of 100,000 rows in pages of 500 held the loop for seconds and every other request
 * waited. `yieldIfDue` lets the pending I/O, timers and other requests run (setImmediate) once
 * `budgetMs` have passed since the walk last did; `due` tells a loop over rows when to stop and yield.
 */
export class LoopSlice {
  private startedAt = performance.now();

  constructor(private readonly budgetMs = sliceMs) {}

  /** Whether the walk has had its share: it should give the loop back before going on. */
  due(): boolean {
    return performance.now() - this.startedAt >= this.budgetMs;
  }

  /** Gives the loop back if the walk has had its share; answers at once otherwise. */
  async yieldIfDue(): Promise<void> {
    if (this.due()) await this.yieldNow();
  }

  /** Gives the loop back now (between a walk's transactions, where one batch can use up a slice). */
  async yieldNow(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.startedAt = performance.now();
  }
}
