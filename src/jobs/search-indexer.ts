import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { AppContext } from '../context.js';
import type { Database } from '../db/database.js';
import { scopeTokenSql } from '../db/search.js';
import { LoopSlice } from '../domain/loop-slice.js';
import type { ForegroundLoad } from './worker.js';

export interface SearchIndexerOptions {
  /** Backlog rows moved into the index per transaction. */
  chunkRows?: number;
  /** Work in front of people; while it is busy, indexing waits until the backlog reaches `busyBacklogLimit`. */
  foreground?: ForegroundLoad;
  busyBacklogLimit?: number;
  /** How often an empty backlog, or a busy foreground, is looked at again. */
  pollIntervalMs?: number;
  logger?: Pick<Logger, 'error'>;
}

// NOTE: FTS5 writes each transaction's terms as one segment: per row, 200 rows cost ~25 µs against
// ~30 at a group commit's ~40, and 500 rows ~22 µs but held the event loop for 10 to 90 ms a chunk.
const CHUNK_ROWS = 200;
// While visitors wait, the backlog may grow this far: a search then checks up to this many rows
// one by one (~7 ms on the benchmark machine), and a sustained burst is indexed in chunks as it comes.
const BUSY_BACKLOG_LIMIT = 10_000;
const POLL_INTERVAL_MS = 250;
const RETRY_AFTER_ERROR_MS = 5_000;

/**
 * Moves SQLite's search backlog (migration 0009) into the search index, after the visitors whose
 * submissions made it have been answered. Searches read the backlog as well, so indexing changes how
 * fast a search is, never what it finds. PostgreSQL has no backlog; there it never starts.
 */
export class SearchIndexer {
  private readonly chunkRows: number;
  private readonly busyBacklogLimit: number;
  private readonly pollIntervalMs: number;
  private timer: NodeJS.Timeout | undefined;
  private pass: Promise<void> | null = null;
  private running = false;

  constructor(
    private readonly database: Database,
    private readonly options: SearchIndexerOptions = {},
  ) {
    this.chunkRows = options.chunkRows ?? CHUNK_ROWS;
    this.busyBacklogLimit = options.busyBacklogLimit ?? BUSY_BACKLOG_LIMIT;
    this.pollIntervalMs = options.pollIntervalMs ?? POLL_INTERVAL_MS;
  }

  /** Indexes in the background until `stop`. */
  start(): void {
    if (this.running || this.database.dialect !== 'sqlite') return;
    this.running = true;
    this.schedule(0);
  }

  /** Stops, after the chunk being indexed (if any) has committed. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.pass;
  }

  /** Rows stored but not yet in the index (always 0 on PostgreSQL). */
  async backlog(): Promise<number> {
    if (this.database.dialect !== 'sqlite') return 0;
    const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM search_backlog`.execute(this.database.db);
    return Number(rows[0]!.n);
  }

  /**
   * Moves up to `limit` rows, oldest first, from the backlog into the index in one transaction;
   * answers how many moved. The commit skips the fsync: lost in a power cut, the rows are still in
   * the backlog (the two change together) and are indexed again. On PostgreSQL there is nothing to move.
   */
  async indexChunk(limit = this.chunkRows): Promise<number> {
    if (this.database.dialect !== 'sqlite') return 0;
    return this.database.withoutFsync((db) =>
      db.transaction().execute(async (trx) => {
        const oldest = sql`SELECT seq FROM search_backlog ORDER BY seq LIMIT ${limit}`;
        // ascending rowids: FTS5 flushes what it holds whenever a rowid is lower than the last
        await sql`INSERT INTO submissions_search (rowid, search_text, workspace_scope, form_scope)
          SELECT seq, search_text, ${scopeTokenSql('workspace_id')}, ${scopeTokenSql('form_id')}
          FROM submissions WHERE seq IN (${oldest}) ORDER BY seq`.execute(trx);
        const moved = await sql`DELETE FROM search_backlog WHERE seq IN (${oldest})`.execute(trx);
        return Number(moved.numAffectedRows ?? 0n);
      }),
    );
  }

  /** Indexes the whole backlog now, a chunk at a time, giving the event loop back between chunks when due; answers how many rows moved. */
  async indexAll(): Promise<number> {
    let total = 0;
    const slice = new LoopSlice();
    for (;;) {
      await slice.yieldIfDue();
      const moved = await this.indexChunk();
      total += moved;
      if (moved < this.chunkRows) return total;
    }
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.pass = this.step().finally(() => {
        this.pass = null;
      });
    }, ms);
    this.timer.unref();
  }

  private async step(): Promise<void> {
    if (!this.running) return;
    let next = this.pollIntervalMs;
    try {
      if (!this.options.foreground?.busy() || (await this.backlog()) >= this.busyBacklogLimit) {
        // a full chunk: more may be waiting
        if ((await this.indexChunk()) === this.chunkRows) next = 0;
      }
    } catch (err) {
      this.options.logger?.error({ err }, 'indexing submissions for search failed; trying again shortly');
      next = RETRY_AFTER_ERROR_MS;
    }
    if (this.running) this.schedule(next);
  }
}

/** Starts this instance's search indexer (SQLite only; on PostgreSQL it does nothing); `formgate serve` calls it once. */
export function startSearchIndexing(ctx: Pick<AppContext, 'database' | 'visitors'>, logger: Logger): SearchIndexer {
  const indexer = new SearchIndexer(ctx.database, { foreground: ctx.visitors, logger: logger.child({ component: 'search-index' }) });
  indexer.start();
  return indexer;
}
