import type pg from 'pg';

/** The channel that migration 0023's triggers notify, with the name of what changed as payload. */
export const CHANGES_CHANNEL = 'formgate_changes';
/** How the listener's connection shows in pg_stat_activity. */
export const CHANGE_FEED_APPLICATION = 'formgate-change-feed';

const FIRST_RETRY_MS = 500;
const LAST_RETRY_MS = 10_000;
/** How long a reading waits for the listener's connection to answer before it reads as if nothing were kept. */
export const CATCH_UP_WAIT_MS = 1_000;

/** `connecting`: its first connection is under way; `reconnecting`: it was lost (or never came). */
export type ChangeFeedState = 'connecting' | 'listening' | 'reconnecting';

/**
 * On PostgreSQL, the counts of changes that SQLite keeps in `change_counts`: triggers (migration
 * 0023) NOTIFY `formgate_changes` with the name of what changed, and every notification heard moves
 * that name's count here. One connection of its own listens, so changes made by other instances
 * and by the admin commands are heard; the pool's connections listen too (database.ts), which
 * hears this process's own commits before they return.
 * A notification committed elsewhere reaches the listener a little after its commit, so a request
 * could outrun it. Each reading therefore first asks the listener's connection a trivial query,
 * shared by every reading of one turn of the event loop: PostgreSQL sends a session the
 * notifications pending for it before the answer to its next query, so once that answer is back,
 * every change committed before the reading began has been counted.
 * NOTE: while the listener is not listening, or does not answer in time, a notification may be
 * missed, so every reading of a count is a new one (rows kept in memory are then read again on
 * every request), and every count moves once it listens again.
 */
export class ChangeFeed {
  private readonly counts = new Map<string, number>();
  private state: ChangeFeedState | null = null;
  private client: pg.Client | null = null;
  private clientEnded: Promise<unknown> = Promise.resolve();
  private retryMs = FIRST_RETRY_MS;
  private retry: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly watchers = new Set<(state: ChangeFeedState) => void>();
  private caughtUpThisTurn: Promise<boolean> | null = null;
  // a question to the listener's current connection went unanswered past CATCH_UP_WAIT_MS, and nothing has been answered since
  private stalled = false;
  // the question the listener's connection is answering, and the one the turns since then wait for
  private asking: { client: pg.Client; answer: Promise<unknown> } | null = null;
  private nextQuestion: Promise<unknown> | null = null;

  constructor(private readonly newClient: () => pg.Client) {}

  /** `watcher` hears when the listener is lost (or its first connection fails) and when it listens again after that. */
  watch(watcher: (state: ChangeFeedState) => void): void {
    this.watchers.add(watcher);
  }

  /**
   * How many changes to `name` were heard, counting every change committed before this call;
   * started here, at the first reading (admin commands never read one).
   */
  async count(name: string): Promise<number> {
    this.start();
    // closed (the database destroyed): nothing is heard any more, so nothing stays kept either
    if (this.state === 'listening' && !this.closed && (await this.caughtUp())) return this.counts.get(name) ?? 0;
    const n = (this.counts.get(name) ?? 0) + 1;
    this.counts.set(name, n);
    return n;
  }

  /** A notification of a change to `name`, heard on any connection of this process. */
  heard(name: string): void {
    this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
  }

  /** Whether the listener listens (read by /healthz and /metrics); starts it if nothing had. */
  currentState(): ChangeFeedState {
    this.start();
    return this.state!;
  }

  /** Stops listening; resolves once the listener's connection has closed. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    this.client?.end().catch(() => undefined);
    await this.clientEnded;
  }

  /** Whether the listener has heard every notification committed before this turn (one question per turn). */
  private caughtUp(): Promise<boolean> {
    if (!this.caughtUpThisTurn) {
      this.caughtUpThisTurn = this.askListener();
      setImmediate(() => (this.caughtUpThisTurn = null));
    }
    return this.caughtUpThisTurn;
  }

  private askListener(): Promise<boolean> {
    const client = this.client;
    // stalled: ask nothing more (the questions would only queue up) until it answers the one it has
    if (!client || this.stalled) return Promise.resolve(false);
    return new Promise((resolve) => {
      const late = setTimeout(() => {
        if (this.client === client) this.stalled = true;
        resolve(false);
      }, CATCH_UP_WAIT_MS);
      late.unref();
      const answered = (ok: boolean) => {
        clearTimeout(late);
        if (this.client === client) this.stalled = false;
        resolve(ok && this.client === client && this.state === 'listening');
      };
      this.question(client).then(
        () => answered(true),
        () => answered(false),
      );
    });
  }

  /**
   * `select 1` on the listener's connection, sent once no earlier question is outstanding there:
   * the turns that ask meanwhile share the one sent when it is answered, which still leaves after
   * each of their commits. NOTE: never queued on the busy connection itself: pg 8 warns about that
   * on stderr, and pg 9 refuses it.
   */
  private question(client: pg.Client): Promise<unknown> {
    if (this.asking?.client !== client) [this.asking, this.nextQuestion] = [null, null];
    if (!this.asking) {
      const answer = client.query('select 1');
      const asking = { client, answer };
      this.asking = asking;
      const done = () => {
        if (this.asking === asking) this.asking = null;
      };
      answer.then(done, done);
      return answer;
    }
    // NOTE: chained after `done` above (reactions run in the order they were added), so it finds nothing outstanding
    this.nextQuestion ??= this.asking.answer
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        this.nextQuestion = null;
        return this.question(client);
      });
    return this.nextQuestion;
  }

  private start(): void {
    if (this.state !== null || this.closed) return;
    this.state = 'connecting';
    this.listen();
  }

  private listen(): void {
    this.retry = null;
    if (this.closed) return;
    const client = this.newClient();
    this.client = client;
    this.stalled = false;
    this.clientEnded = new Promise((resolve) => client.once('end', resolve));
    // NOTE: a refused connection, a terminated backend or a dropped socket all end in 'end'; unheard, 'error' would crash the process
    client.on('error', () => undefined);
    client.on('notification', (message) => {
      if (message.channel === CHANGES_CHANNEL && message.payload) this.heard(message.payload);
    });
    client.once('end', () => this.lost(client));
    client
      .connect()
      .then(() => client.query(`LISTEN ${CHANGES_CHANNEL}`))
      .then(
        () => this.listening(client),
        () => client.end().catch(() => undefined),
      );
  }

  private listening(client: pg.Client): void {
    if (this.client !== client || this.closed) return;
    const wasLost = this.state === 'reconnecting';
    this.state = 'listening';
    this.retryMs = FIRST_RETRY_MS;
    // what changed while nobody listened was not heard
    for (const name of this.counts.keys()) this.heard(name);
    if (wasLost) this.tell('listening');
  }

  private tell(state: ChangeFeedState): void {
    for (const watcher of this.watchers) watcher(state);
  }

  private lost(client: pg.Client): void {
    if (this.client !== client || this.closed) return;
    this.client = null;
    const news = this.state !== 'reconnecting';
    this.state = 'reconnecting';
    if (news) this.tell('reconnecting');
    this.retry = setTimeout(() => this.listen(), this.retryMs);
    this.retry.unref();
    this.retryMs = Math.min(this.retryMs * 2, LAST_RETRY_MS);
  }
}
