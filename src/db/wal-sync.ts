import fs from 'node:fs/promises';

/** Flushes a file to the disk: FileHandle.datasync (fdatasync on the thread pool) unless a test gives its own. */
export type DataSync = (handle: fs.FileHandle) => Promise<void>;

interface Waiter {
  generation: number;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Makes SQLite commits durable off the event loop. A transaction made with synchronous=NORMAL in
 * WAL mode is in the WAL file when COMMIT returns, but maybe only in the operating system's cache;
 * fdatasync on that file then puts it on the disk, as synchronous=FULL would have inside COMMIT,
 * blocking the event loop for the whole flush (0.2 ms here, 1–10 ms on many servers' disks).
 *
 * Transactions are numbered as they begin (`begin`) and marked as they end (`end`), one at a time
 * (group commit writes one batch at a time). `whenDurable(n)` resolves once a flush that started
 * after transaction n ended has finished. Concurrent requests share flushes: at most one runs, and
 * the next starts when it finishes, covering every transaction ended by then.
 */
export class WalSync {
  private begun = 0;
  private ended = 0;
  private durable = 0;
  private waiters: Waiter[] = [];
  private flushing = false;
  private handle: Promise<fs.FileHandle> | null = null;

  constructor(
    private readonly walPath: string,
    private readonly dataSync: DataSync = (handle) => handle.datasync(),
  ) {}

  /** Numbers a transaction that commits without waiting for the disk; call before it starts writing. */
  begin(): number {
    return ++this.begun;
  }

  /** Marks transaction `generation` as ended, committed or rolled back. */
  end(generation: number): void {
    this.ended = Math.max(this.ended, generation);
    if (this.waiters.length > 0) this.flush();
  }

  /** Resolves once every transaction begun so far (or up to `generation`) is on the disk. */
  whenDurable(generation = this.begun): Promise<void> {
    if (generation <= this.durable) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiters.push({ generation, resolve, reject });
      this.flush();
    });
  }

  async close(): Promise<void> {
    const handle = this.handle;
    this.handle = null;
    if (handle) await (await handle.catch(() => null))?.close();
  }

  private flush(): void {
    if (this.flushing || !this.waiters.some((waiter) => waiter.generation <= this.ended)) return;
    this.flushing = true;
    const covered = this.ended;
    const flushed = this.open().then((handle) => this.dataSync(handle));
    flushed.then(
      () => {
        this.durable = Math.max(this.durable, covered);
        this.settle((waiter) => waiter.resolve(), covered);
      },
      (error: unknown) => this.settle((waiter) => waiter.reject(error), covered),
    );
  }

  private settle(answer: (waiter: Waiter) => void, covered: number): void {
    this.flushing = false;
    const settled = this.waiters.filter((waiter) => waiter.generation <= covered);
    this.waiters = this.waiters.filter((waiter) => waiter.generation > covered);
    settled.forEach(answer);
    this.flush();
  }

  // NOTE: opened once, after the first commit, and kept: SQLite keeps its own descriptor of the WAL
  // for the connection's life, so this one reaches the same file even were the path replaced.
  private open(): Promise<fs.FileHandle> {
    if (this.handle) return this.handle;
    const opening = fs.open(this.walPath, 'r+');
    // a failed open is tried again at the next flush
    opening.catch(() => {
      if (this.handle === opening) this.handle = null;
    });
    this.handle = opening;
    return opening;
  }
}
