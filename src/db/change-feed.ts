import type pg from 'pg';

/** The channel that migration 0023's triggers notify, with the name of what changed as payload. */
export const CHANGES_CHANNEL = 'formgate_changes';
/** How the listener's connection shows in pg_stat_activity. */
export const CHANGE_FEED_APPLICATION = 'formgate-change-feed';

const FIRST_RETRY_MS = 500;
const LAST_RETRY_MS = 10_000;

/** `connecting`: its first connection is under way; `reconnecting`: it was lost (or never came). */
export type ChangeFeedState = 'connecting' | 'listening' | 'reconnecting';

/**
 * On PostgreSQL, the counts of changes that SQLite keeps in `change_counts`: triggers (migration
 * 0023) NOTIFY `formgate_changes` with the name of what changed, and every notification heard moves
 * that name's count here. One connection of its own listens, so changes made by other instances
 * and by the admin commands are heard within milliseconds; the pool's connections listen too
 * (database.ts), which hears this process's own commits before they return.
 * NOTE: while the listener is not listening a notification may be missed, so every reading of a
 * count is a new one (rows kept in memory are then read again on every request), and every count
 * moves once it listens again.
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

  constructor(private readonly newClient: () => pg.Client) {}

  /** `watcher` hears when the listener is lost (or its first connection fails) and when it listens again after that. */
  watch(watcher: (state: ChangeFeedState) => void): void {
    this.watchers.add(watcher);
  }

  /** How many changes to `name` were heard; started here, at the first reading (admin commands never read one). */
  count(name: string): number {
    this.start();
    const n = this.counts.get(name) ?? 0;
    // closed (the database destroyed): nothing is heard any more, so nothing stays kept either
    if (this.state === 'listening' && !this.closed) return n;
    this.counts.set(name, n + 1);
    return n + 1;
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
