import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { CamelCasePlugin, CompiledQuery, type DatabaseConnection, Kysely, PostgresDialect, SqliteDialect, SqliteDriver, sql, type Transaction } from 'kysely';
import { LRUCache } from 'lru-cache';
import { createRequire } from 'node:module';
import type pg from 'pg';
import type { DatabaseConfig } from '../config/config.js';
import { createPrivateFileSync, makePrivateDirSync } from '../private-files.js';
import { CHANGE_FEED_APPLICATION, CHANGES_CHANNEL, ChangeFeed, type ChangeFeedState } from './change-feed.js';
import { PreparedQuery, statementNameOf } from './prepared-query.js';
import { isStorageUnavailable } from './storage-errors.js';
import type { ChangeCounted, DB } from './schema/index.js';
import { WalSync, type DataSync } from './wal-sync.js';

export type Dialect = 'sqlite' | 'postgres';
export type Queryable = Kysely<DB> | Transaction<DB>;

/** Loaded only for PostgreSQL: the embedded default never pays pg's memory. */
function loadPg(): typeof pg {
  const driver = createRequire(import.meta.url)('pg') as typeof pg;
  // NOTE: PostgreSQL bigint (int8) arrives as a string by default; our bigints are epoch
  // milliseconds and counters, all far inside Number's safe range.
  driver.types.setTypeParser(20, (value) => Number(value));
  // `json` columns (a submission's fields, a job's payload) arrive as their text, as SQLite's do:
  // fromJson parses them where needed, and a list page sends them as stored (keys in the order sent).
  driver.types.setTypeParser(114, (value) => value);
  return driver;
}

/**
 * better-sqlite3 with prepared statements kept by their SQL: Kysely prepares every query it runs,
 * and preparing cost as much as running on the hot paths. Bounded, since `IN (?, ?, …)` lists make
 * new texts.
 */
function withStatementCache(sqlite: SqliteDatabase.Database): SqliteDatabase.Database {
  const statements = new LRUCache<string, SqliteDatabase.Statement>({ max: 500 });
  const prepare = sqlite.prepare.bind(sqlite);
  return Object.create(sqlite, {
    prepare: {
      value(source: string) {
        let statement = statements.get(source);
        if (!statement) {
          statement = prepare(source);
          statements.set(source, statement);
        }
        return statement;
      },
    },
  }) as SqliteDatabase.Database;
}

/**
 * Kysely's SQLite dialect, except that a failed transaction is rolled back only if SQLite has not
 * done so itself. After SQLITE_FULL or an I/O error SQLite ends the transaction on its own, and the
 * ROLLBACK Kysely sent then failed with "cannot rollback - no transaction is active", in place of
 * the error that said what happened (so a full disk was answered 500 instead of 503).
 */
function sqliteDialect(sqlite: SqliteDatabase.Database, immediate: boolean): SqliteDialect {
  const database = withStatementCache(sqlite);
  class Driver extends SqliteDriver {
    override async beginTransaction(connection: DatabaseConnection): Promise<void> {
      if (immediate) await connection.executeQuery(CompiledQuery.raw('begin immediate'));
      else await super.beginTransaction(connection);
    }

    override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
      if (sqlite.inTransaction) await super.rollbackTransaction(connection);
    }
  }
  return new (class extends SqliteDialect {
    override createDriver() {
      return new Driver({ database });
    }
  })({ database });
}

/** How long after a write failed for want of storage the database counts as failing writes (the delivery workers write every half second). */
const WRITES_FAILING_FOR_MS = 5_000;

/** Kysely over SQLite or PostgreSQL, with the few helpers that must differ between them. */
export class Database {
  private readonly changeCountRow = new PreparedQuery<{ name: ChangeCounted }, { n: number }>((db, { name }) =>
    db.selectFrom('changeCounts').select('n').where('name', '=', name),
  );

  private constructor(
    readonly db: Kysely<DB>,
    readonly dialect: Dialect,
    /** Resolves when every connection opened so far has closed (PostgreSQL; SQLite closes at once). */
    private readonly connectionsClosed: () => Promise<unknown> = async () => undefined,
    /** SQLite in a file: flushes the commits of `transactionFlushedLater` (null on PostgreSQL and in memory). */
    private readonly walSync: WalSync | null = null,
    /** PostgreSQL: the counts of changes heard through LISTEN/NOTIFY (migration 0023). */
    private readonly feed: ChangeFeed | null = null,
  ) {}

  /**
   * `dataSync`: how the WAL is flushed (tests hold flushes back with their own). `mustExist`: an
   * SQLite file that is not there is an error instead of a new, empty database (admin commands).
   * `readerTransactions`: SQLite, this handle's transactions only read (the move's one consistent
   * reading), so they begin DEFERRED and never hold other processes' writers back. Every other handle
   * (the server, the admin commands, `formgate import`) begins each transaction with the write lock
   * (BEGIN IMMEDIATE), waiting for it as long as busy_timeout allows. NOTE: a transaction begun as a
   * reader and turning writer once another process has committed fails at once with SQLITE_BUSY
   * ("database is locked"), whatever the timeout: SQLite cannot wait for a snapshot that is already
   * out of date. The server's own transactions all write, and one process holds one connection, so
   * taking the lock first costs it nothing; without it a submission could fail while an import, an
   * admin command or a second instance wrote.
   */
  static open(config: DatabaseConfig, options: { dataSync?: DataSync; mustExist?: boolean; readerTransactions?: boolean } = {}): Database {
    // NOTE: nested keys are the visitors' own field names (parsed JSON columns): they are never renamed.
    const plugins = [new CamelCasePlugin({ maintainNestedObjectKeys: true })];
    if (config.dialect === 'sqlite') {
      if (options.mustExist && config.file !== ':memory:' && !fs.existsSync(config.file)) throw new MissingDatabaseError(config);
      if (config.file !== ':memory:' && !options.mustExist) {
        // SQLite makes its -wal and -shm files with the database file's mode, so these cover all three
        makePrivateDirSync(path.dirname(path.resolve(config.file)));
        createPrivateFileSync(config.file);
      }
      const sqlite = new SqliteDatabase(config.file, { fileMustExist: options.mustExist === true });
      sqlite.pragma('journal_mode = WAL');
      // FULL: a commit is on disk before a visitor hears "received", even through a power loss.
      // Group commit (intake/writer.ts) pays that fsync once per batch, not once per submission.
      sqlite.pragma('synchronous = FULL');
      sqlite.pragma('foreign_keys = ON');
      sqlite.pragma('busy_timeout = 5000');
      // 8 MB of page cache instead of better-sqlite3's 16: the operating system caches the file too,
      // and on the benchmark lists and searches of 50,000 rows ran as fast while a burst of
      // submissions peaked 7 MB lower.
      sqlite.pragma('cache_size = -8000');
      // Checkpoints run inside a commit, on the event loop, with two fsyncs each: every 4,000 pages
      // (16 MB of WAL) instead of SQLite's 1,000, a burst of submissions pays a quarter as many. With
      // 10 ms fsyncs (an emulated slow disk), submit went from 1,812 to 2,157 req/s; with this
      // machine's 0.2 ms, no worse.
      sqlite.pragma('wal_autocheckpoint = 4000');
      const kysely = new Kysely<DB>({ dialect: sqliteDialect(sqlite, options.readerTransactions !== true), plugins });
      const inWal = sqlite.pragma('journal_mode', { simple: true }) === 'wal';
      // the WAL sits beside the real file when the path given is a symbolic link
      const walSync = inWal ? new WalSync(`${fs.realpathSync(config.file)}-wal`, options.dataSync) : null;
      return new Database(kysely, 'sqlite', undefined, walSync);
    }
    const driver = loadPg();
    const ends = new Set<Promise<void>>();
    // NOTE: LISTEN runs in pg-pool's onConnect, which the pool awaits before it hands a new
    // connection out: queued from the 'connect' event, it made the first query on that connection
    // wait in pg's own queue, which pg 8 warns about on stderr and pg 9 refuses.
    const pool = new driver.Pool({ connectionString: config.url, max: 10, onConnect: (client) => listenForChanges(client, feed) });
    // NOTE: its own connection, never the pool's: it would stay checked out for as long as it listens.
    // An application_name in the URL wins over this one.
    const feed = new ChangeFeed(
      () => new driver.Client({ connectionString: config.url, application_name: CHANGE_FEED_APPLICATION, keepAlive: true, connectionTimeoutMillis: 10_000 }),
    );
    // NOTE: an idle connection's error (server restart, dropped socket) is emitted on the pool, which
    // has already discarded that connection; unheard, it would crash the process.
    pool.on('error', () => undefined);
    pool.on('connect', (client) => {
      // NOTE: a connection that fails while checked out (the server killed it, a failover) emits
      // 'error' on its client, where the pool does not listen: unheard, it was an uncaught exception.
      // The query under way fails with the same error, and the pool discards the broken client when
      // it is released; nothing more is to be done here.
      client.on('error', () => undefined);
      prepareKnownStatements(client);
      const end: Promise<void> = new Promise((resolve) => client.once('end', () => resolve(void ends.delete(end))));
      ends.add(end);
    });
    return new Database(new Kysely<DB>({ dialect: new PostgresDialect({ pool }), plugins }), 'postgres', () => Promise.all([...ends]), null, feed);
  }

  /** PostgreSQL: `watcher` hears when the change feed is lost and when it listens again (the composition logs it). */
  watchChangeFeed(watcher: (state: ChangeFeedState) => void): void {
    this.feed?.watch(watcher);
  }

  /** PostgreSQL: whether the change feed listens (/healthz, /metrics), which starts it if nothing had; null on SQLite. */
  changeFeedState(): ChangeFeedState | null {
    return this.feed?.currentState() ?? null;
  }

  /** When a write last failed because the database could not take it (disk full, connection lost). */
  private writeFailedAt = Number.NEGATIVE_INFINITY;

  /**
   * Whether a write through transaction(), withoutFsync() or a flush failed for want of storage in
   * the last few seconds (GET /healthz says so). NOTE: not "since the last success": a claim that
   * finds no job, or a flush of nothing, succeeds on a full disk too.
   */
  get writesFailing(): boolean {
    return Date.now() - this.writeFailedAt < WRITES_FAILING_FOR_MS;
  }

  /** Notes a write's failure for want of storage, for `writesFailing`. */
  private noteWrite<T>(write: Promise<T>): Promise<T> {
    return write.catch((error: unknown) => {
      if (isStorageUnavailable(error)) this.writeFailedAt = Date.now();
      throw error;
    });
  }

  /** Runs `fn` in one transaction; it commits when `fn` resolves and rolls back when it throws. */
  transaction<T>(fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return this.noteWrite(this.db.transaction().execute(fn));
  }

  /** Runs `fn`, one statement atomic on its own (no transaction), noted as a write for `writesFailing`. */
  write<T>(fn: (db: Kysely<DB>) => Promise<T>): Promise<T> {
    return this.noteWrite(fn(this.db));
  }

  /**
   * Runs `fn` with commits that need not reach the disk before they return: for writes whose loss
   * in a power cut is harmless, such as the delivery worker's claims and records (a delivery whose
   * record is lost is sent again: deliveries are at least once). On SQLite the connection runs
   * with synchronous=NORMAL for `fn`'s duration, so its commits skip the fsync that blocks the event
   * loop; the next ordinary commit (FULL) flushes them along with its own. Nothing else runs on the
   * connection meanwhile. On PostgreSQL it is `fn` as it is: waiting for a commit there blocks
   * nothing.
   */
  async withoutFsync<T>(fn: (db: Kysely<DB>) => Promise<T>): Promise<T> {
    if (this.dialect !== 'sqlite') return this.noteWrite(fn(this.db));
    return this.noteWrite(this.withoutFsyncOnSqlite(fn));
  }

  private withoutFsyncOnSqlite<T>(fn: (db: Kysely<DB>) => Promise<T>): Promise<T> {
    return this.db.connection().execute(async (db) => {
      await sql`PRAGMA synchronous = NORMAL`.execute(db);
      try {
        return await fn(db);
      } finally {
        await sql`PRAGMA synchronous = FULL`.execute(db);
      }
    });
  }

  /**
   * Runs `fn` in one transaction whose commit does not wait for the disk, so that the event loop
   * goes on meanwhile; `whenDurable()` then waits for it. For intake, which answers each batch only
   * once it is durable and writes the next batch while the last one is flushed (group commit,
   * pipelined). On SQLite the commit skips the fsync (as in `withoutFsync`) and the WAL is flushed
   * on the thread pool afterwards (db/wal-sync.ts). On PostgreSQL it is an ordinary transaction:
   * waiting for its commit blocks nothing.
   */
  async transactionFlushedLater<T>(fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    const walSync = this.walSync;
    if (!walSync) return this.transaction(fn);
    const generation = walSync.begin();
    try {
      return await this.withoutFsync((db) => db.transaction().execute(fn));
    } finally {
      walSync.end(generation);
    }
  }

  /**
   * Resolves once every commit of `transactionFlushedLater` made so far is on the disk. Whoever acts
   * on what such a commit wrote awaits this first (the delivery worker does before sending), since
   * the one connection sees those rows before they are durable.
   */
  whenDurable(): Promise<void> {
    return this.walSync ? this.noteWrite(this.walSync.whenDurable()) : Promise.resolve();
  }

  /** Whether `changeCount` is kept, so that rows read on every request may be kept in memory (db/kept-rows.ts): on both dialects now. */
  get countsChanges(): boolean {
    return true;
  }

  /**
   * A count that moves whenever what `name` reads changes. SQLite: `change_counts`, kept by the
   * triggers of migration 0010. PostgreSQL: the notifications of migration 0023's triggers heard so
   * far (db/change-feed.ts): a commit of this process is counted before it returns.
   */
  async changeCount(name: ChangeCounted): Promise<number> {
    if (this.feed) return this.feed.count(name);
    return (await this.changeCountRow.executeTakeFirst(this.db, { name }))!.n;
  }

  /** Whether the database answers a trivial query. */
  async ping(): Promise<boolean> {
    try {
      await sql`select 1`.execute(this.db);
      return true;
    } catch {
      return false;
    }
  }

  /** Closes the database; on PostgreSQL it resolves once the server has seen every connection close. */
  async destroy(): Promise<void> {
    await Promise.all([this.db.destroy(), this.feed?.close()]);
    await this.walSync?.close();
    // NOTE: pg's pool.end() resolves before its sockets have closed; dropping the database right
    // after (the test suite does) would then kill live backends.
    await this.connectionsClosed();
  }
}

/**
 * Has `client` run PreparedQuery texts as named statements, which PostgreSQL parses and plans once
 * per connection; every other query goes as it came. Kysely sends each query as `query(text,
 * values)`, so this is where the name can be added.
 */
function prepareKnownStatements(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  client.query = ((text: unknown, ...rest: unknown[]) => {
    const name = typeof text === 'string' && rest.length === 1 && Array.isArray(rest[0]) ? statementNameOf(text) : undefined;
    return name ? query({ name, text, values: rest[0] }) : query(text, ...rest);
  }) as typeof client.query;
}

/**
 * Has a pool connection listen for changes, so that this process's own commits are counted before
 * they return: PostgreSQL sends a session its own notifications before the committing statement's
 * ReadyForQuery. Awaited before the pool hands the connection out; should it fail, the pool ends
 * that connection and the request for one fails with the error.
 */
async function listenForChanges(client: pg.ClientBase, feed: ChangeFeed): Promise<void> {
  client.on('notification', (message) => {
    if (message.channel === CHANGES_CHANNEL && message.payload) feed.heard(message.payload);
  });
  await client.query(`LISTEN ${CHANGES_CHANNEL}`);
}

/** Whether `error` is a unique-constraint violation, on either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string } | null;
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** Value to write into a JSON column (text on SQLite, json or jsonb on PostgreSQL). */
export function toJson(value: unknown): string {
  return JSON.stringify(value);
}

/** Value read from a JSON column: text (SQLite, and PostgreSQL's json), or jsonb already parsed. */
export function fromJson<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

/** Where a database is, for messages: an SQLite file's absolute path, a PostgreSQL URL without its password. */
export function describeDatabase(config: DatabaseConfig): string {
  if (config.dialect === 'sqlite') return config.file === ':memory:' ? 'sqlite::memory:' : `sqlite:${path.resolve(config.file)}`;
  try {
    const url = new URL(config.url);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return 'postgres://(unreadable URL)';
  }
}

/** An admin command was pointed at a database that does not exist, or that Formgate never set up. */
export class MissingDatabaseError extends Error {
  constructor(config: DatabaseConfig, reason?: string) {
    super(
      reason?.startsWith('does not exist, and')
        ? `the database ${describeDatabase(config)} ${reason}`
        : `the database ${describeDatabase(config)} ${reason ?? 'does not exist'}; admin commands do not create one. ` +
            'Run the command where `formgate serve` runs (FORMGATE_DATABASE_URL, or ./data/formgate.db in the working folder), or set the database up first with `formgate migrate` (or by starting `formgate serve`).',
    );
    this.name = 'MissingDatabaseError';
  }
}
