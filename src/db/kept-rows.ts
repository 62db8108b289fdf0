import { LRUCache } from 'lru-cache';
import { SingleFlight } from './single-flight.js';

/** The longest a row is kept, even while nothing says it changed. */
export const KEPT_AT_MOST_MS = 60_000;

/**
 * Rows kept in memory for as long as the database says that nothing they were read from has changed.
 * Triggers count the changes, made by this process or any other (other instances, the admin
 * commands), so no code that writes has to remember to tell the cache: SQLite's `change_counts`
 * (migration 0010), PostgreSQL's notifications (migration 0023, db/change-feed.ts). The count is
 * read at most once per turn of the event loop, and everything kept is dropped when it has moved: a
 * change applies to every request that arrives after it was committed, whichever process made it
 * (on PostgreSQL, db/change-feed.ts waits for the notifications sent before). Lookups that find nothing
 * are not kept. Concurrent lookups of one key share a query.
 */
export class KeptRows<T extends object> {
  // keyed by count and key: a lookup begun under an older count is never shared with a newer caller
  private readonly lookups: SingleFlight<T | undefined>;
  // bounded: a row that stops being asked for is dropped in time
  // NOTE: and kept a minute at most whatever the counts say: where a change can go unheard without the
  // feed knowing (PostgreSQL behind PgBouncer in transaction mode, unsupported), a row is stale for a
  // minute, not until the next restart. One lookup per row a minute costs nothing measurable.
  private readonly kept: LRUCache<string, T>;
  private keptAt: number | null = null;
  private countThisTurn: Promise<number> | null = null;

  constructor(
    private readonly changeCount: () => Promise<number>,
    lookup: (key: string) => Promise<T | undefined>,
    keptAtMostMs = KEPT_AT_MOST_MS,
    /** The clock rows are kept by (a test's own, or the real one). */
    now: () => number = () => performance.now(),
    /** The most rows kept at once (the least recently used go first). */
    max = 10_000,
  ) {
    this.kept = new LRUCache<string, T>({ max, ttl: keptAtMostMs, ttlResolution: 0, perf: { now } });
    this.lookups = new SingleFlight((countAndKey) => lookup(countAndKey.slice(countAndKey.indexOf(':') + 1)));
  }

  async get(key: string): Promise<T | undefined> {
    const count = await this.count();
    if (count !== this.keptAt) {
      this.kept.clear();
      this.keptAt = count;
    }
    const kept = this.kept.get(key);
    if (kept) return kept;
    // Looked up after the count was read, so never older than it: kept under that count, a row
    // changed meanwhile is dropped at the next turn's reading.
    const row = await this.lookups.get(`${count}:${key}`);
    if (row && this.keptAt === count) this.kept.set(key, row);
    return row;
  }

  private count(): Promise<number> {
    if (!this.countThisTurn) {
      this.countThisTurn = this.changeCount();
      setImmediate(() => (this.countThisTurn = null));
    }
    return this.countThisTurn;
  }
}
